// Internal: error handlers and error codes beyond the communicator ones in mpi_impl.hpp
// (user handlers, window and file handlers, user error classes). Windows are created
// by the window files, which report errors through win_guard / win_error.
#pragma once
#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

// The largest error class or code added by MPI_Add_error_class/_code (MPI_ERR_LASTCODE
// before any): the MPI_LASTUSEDCODE attribute.
int last_used_code() noexcept;

}  // namespace interlace::mpi
