// Internal: MPI_Info objects (mpi_info.cpp) for the files that keep hints (windows,
// communicators created with info). Info objects may be used before MPI_Init.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

using InfoItems = std::vector<std::pair<std::string, std::string>>;  // in the order set

// The (key, value) pairs of info; MPI_INFO_NULL gives none. Raises MPI_ERR_INFO naming
// a handle that is not an info object.
InfoItems info_items(MPI_Info info);
// A new info object holding items (what MPI_*_get_info returns to the user).
MPI_Info info_new(InfoItems items);

// The hints of a communicator, kept as given (copied by MPI_Comm_dup, as MPI 4 says).
void comm_set_hints(MPI_Comm comm, InfoItems items);
InfoItems comm_hints(MPI_Comm comm);

}  // namespace interlace::mpi
