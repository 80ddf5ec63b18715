/* Part of mpi.h: matched probes, generalized requests, status accessors, partitioned and large-count point-to-point, threads.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_P2P_H
#define INTERLACE_MPI_P2P_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/p2p.h"
#endif

#endif /* INTERLACE_MPI_P2P_H */
