/* Part of mpi.h: dynamic processes, MPI-IO (not provided: returns MPI_ERR_UNSUPPORTED_OPERATION), handle conversion, profiling.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_MISC_H
#define INTERLACE_MPI_MISC_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/misc.h"
#endif

#endif /* INTERLACE_MPI_MISC_H */
