/* Part of mpi.h: intercommunicators, communicator creation (create_group, idup, split_type), group ranges.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_COMM_H
#define INTERLACE_MPI_COMM_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/comm.h"
#endif

#endif /* INTERLACE_MPI_COMM_H */
