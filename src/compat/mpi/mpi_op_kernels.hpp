// Internal: the element-wise kernels of the predefined MPI operators on the
// predefined MPI datatypes (mpi_op_kernels.cpp), used where interlace's built-in
// ReduceOp has no equivalent (MPI_LXOR, long double, complex, C bool, MINLOC/MAXLOC).
#pragma once
#include <cstddef>

#include "mpi.h"

namespace interlace::mpi {

// The C alignment of a predefined datatype (1 for an unknown handle).
size_t predefined_align(MPI_Datatype t) noexcept;
// Whether the predefined op may reduce the predefined datatype (MPI-3.1 5.9.2 table).
bool op_allows(MPI_Op op, MPI_Datatype t) noexcept;
// inout[i] = in[i] op inout[i] for n packed elements of t (elements are t's data bytes
// back to back: a pair type's value is followed directly by its int). Requires
// op_allows(op, t).
void apply_predefined(MPI_Op op, MPI_Datatype t, const void* in, void* inout, size_t n);

}  // namespace interlace::mpi
