/* Part of mpi.h: datatypes: envelope/contents, subarray, darray, external32, Fortran handles, type attributes.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_TYPES_H
#define INTERLACE_MPI_TYPES_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/types.h"
#endif

#endif /* INTERLACE_MPI_TYPES_H */
