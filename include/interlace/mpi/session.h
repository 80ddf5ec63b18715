/* Part of mpi.h: the sessions model of MPI 4 (MPI_Session_*, process sets).
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_SESSION_H
#define INTERLACE_MPI_SESSION_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/session.h"
#endif

#endif /* INTERLACE_MPI_SESSION_H */
