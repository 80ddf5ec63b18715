// Dynamic processes. A job started by `interlace run` has no parent, so
// MPI_Comm_get_parent gives MPI_COMM_NULL. Spawning and the port calls are not provided
// yet (docs/mpi.md): they raise MPI_ERR_UNSUPPORTED_OPERATION (MPI_ERR_SPAWN's sibling
// for "this implementation cannot"), reported through the communicator's error handler.
#include <string>

#include "compat/mpi/mpi_impl.hpp"

namespace {
using namespace interlace::mpi;

[[noreturn]] void not_provided(const char* call) {
  raise(MPI_ERR_UNSUPPORTED_OPERATION,
        std::string(call) + " is not provided by interlace yet (see docs/mpi.md)");
}

}  // namespace

extern "C" {

int MPI_Comm_get_parent(MPI_Comm* parent) {
  return guard("MPI_Comm_get_parent", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Comm_get_parent");
    if (!parent) raise(MPI_ERR_ARG, "parent is a null pointer");
    *parent = MPI_COMM_NULL;
  });
}

int MPI_Comm_spawn(const char*, char*[], int, MPI_Info, int, MPI_Comm comm, MPI_Comm*, int[]) {
  return guard("MPI_Comm_spawn", comm, [&] { not_provided("MPI_Comm_spawn"); });
}

int MPI_Comm_spawn_multiple(int, char*[], char**[], const int[], const MPI_Info[], int,
                            MPI_Comm comm, MPI_Comm*, int[]) {
  return guard("MPI_Comm_spawn_multiple", comm,
               [&] { not_provided("MPI_Comm_spawn_multiple"); });
}

int MPI_Open_port(MPI_Info, char*) {
  return guard("MPI_Open_port", MPI_COMM_NULL, [&] { not_provided("MPI_Open_port"); });
}

int MPI_Close_port(const char*) {
  return guard("MPI_Close_port", MPI_COMM_NULL, [&] { not_provided("MPI_Close_port"); });
}

int MPI_Comm_accept(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm*) {
  return guard("MPI_Comm_accept", comm, [&] { not_provided("MPI_Comm_accept"); });
}

int MPI_Comm_connect(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm*) {
  return guard("MPI_Comm_connect", comm, [&] { not_provided("MPI_Comm_connect"); });
}

int MPI_Comm_disconnect(MPI_Comm* comm) {
  // For communicators that are not connected to other jobs (all of them, without
  // spawn) MPI_Comm_disconnect is MPI_Comm_free after the pending traffic completed.
  return MPI_Comm_free(comm);
}

int MPI_Comm_join(int, MPI_Comm*) {
  return guard("MPI_Comm_join", MPI_COMM_NULL, [&] { not_provided("MPI_Comm_join"); });
}

int MPI_Publish_name(const char*, MPI_Info, const char*) {
  return guard("MPI_Publish_name", MPI_COMM_NULL, [&] { not_provided("MPI_Publish_name"); });
}

int MPI_Unpublish_name(const char*, MPI_Info, const char*) {
  return guard("MPI_Unpublish_name", MPI_COMM_NULL,
               [&] { not_provided("MPI_Unpublish_name"); });
}

int MPI_Lookup_name(const char*, MPI_Info, char*) {
  return guard("MPI_Lookup_name", MPI_COMM_NULL, [&] { not_provided("MPI_Lookup_name"); });
}

}  // extern "C"
