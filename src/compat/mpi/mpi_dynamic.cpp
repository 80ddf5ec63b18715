// Dynamic processes. MPI_Comm_spawn(_multiple) start children through mpi_spawn.cpp
// (design and limits in docs/mpi.md); a spawned process finds its parents in
// MPI_Comm_get_parent, a job started by `interlace run` gets MPI_COMM_NULL. The port
// calls (accept/connect, join, name publishing) are not provided yet: they raise
// MPI_ERR_UNSUPPORTED_OPERATION, reported through the communicator's error handler.
#include <string>
#include <vector>

#include "compat/mpi/mpi_impl.hpp"
#include "compat/mpi/mpi_spawn.hpp"

namespace {
using namespace interlace::mpi;

[[noreturn]] void not_provided(const char* call) {
  raise(MPI_ERR_UNSUPPORTED_OPERATION,
        std::string(call) + " is not provided by interlace yet (see docs/mpi.md)");
}

// argv as MPI passes it: NULL-terminated, MPI_ARGV_NULL for none.
std::vector<std::string> args_of(char** argv) {
  std::vector<std::string> out;
  for (; argv && *argv; ++argv) out.emplace_back(*argv);
  return out;
}

void need_command(const char* call, const char* command, int i) {
  if (!command || !*command)
    raise(MPI_ERR_ARG, std::string(call) + ": command " + std::to_string(i) + " is null or empty");
}

}  // namespace

extern "C" {

int MPI_Comm_get_parent(MPI_Comm* parent) {
  return guard("MPI_Comm_get_parent", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Comm_get_parent");
    if (!parent) raise(MPI_ERR_ARG, "parent is a null pointer");
    *parent = spawn::parent();
  });
}

int MPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info, int root, MPI_Comm comm,
                   MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* call = "MPI_Comm_spawn";
  return guard(call, comm, [&] {
    require_initialized(call);
    if (!intercomm) raise(MPI_ERR_ARG, std::string(call) + ": intercomm is a null pointer");
    std::vector<spawn::Command> cmds;
    // Only the root's command, argv and maxprocs count (MPI); the others may pass anything.
    if (comm_of(comm).rank() == root) {
      need_command(call, command, 0);
      cmds.push_back({command, args_of(argv), maxprocs});
    }
    *intercomm = spawn::spawn(call, cmds, root, comm, array_of_errcodes);
  });
}

int MPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info[], int root, MPI_Comm comm,
                            MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* call = "MPI_Comm_spawn_multiple";
  return guard(call, comm, [&] {
    require_initialized(call);
    if (!intercomm) raise(MPI_ERR_ARG, std::string(call) + ": intercomm is a null pointer");
    std::vector<spawn::Command> cmds;
    if (comm_of(comm).rank() == root) {
      if (count < 1) raise(MPI_ERR_ARG, std::string(call) + ": count " + std::to_string(count) + " is below 1");
      if (!array_of_commands || !array_of_maxprocs)
        raise(MPI_ERR_ARG, std::string(call) + ": array_of_commands or array_of_maxprocs is a null pointer");
      for (int i = 0; i < count; ++i) {
        need_command(call, array_of_commands[i], i);
        cmds.push_back({array_of_commands[i], args_of(array_of_argv ? array_of_argv[i] : nullptr),
                        array_of_maxprocs[i]});
      }
    }
    *intercomm = spawn::spawn(call, cmds, root, comm, array_of_errcodes);
  });
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
  // A spawn intercommunicator ends its connection; other communicators are not connected
  // to other jobs, and for them MPI_Comm_disconnect is MPI_Comm_free.
  const MPI_Comm c = comm ? *comm : MPI_COMM_NULL;
  bool done = false;
  const int rc = guard("MPI_Comm_disconnect", c, [&] { done = comm && spawn::disconnect(c); });
  if (rc != MPI_SUCCESS) return rc;
  if (done) {
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
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
