/* Part of mpi.h: one-sided communication (windows).
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_WIN_H
#define INTERLACE_MPI_WIN_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/win.h"
#endif

#endif /* INTERLACE_MPI_WIN_H */
