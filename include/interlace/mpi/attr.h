/* Part of mpi.h: attribute caching, MPI_Info, error handlers and error classes.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_ATTR_H
#define INTERLACE_MPI_ATTR_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/attr.h"
#endif

#endif /* INTERLACE_MPI_ATTR_H */
