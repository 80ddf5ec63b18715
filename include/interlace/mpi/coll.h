/* Part of mpi.h: process topologies and neighbourhood collectives, Alltoallw, persistent collectives.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_COLL_H
#define INTERLACE_MPI_COLL_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/coll.h"
#endif

#endif /* INTERLACE_MPI_COLL_H */
