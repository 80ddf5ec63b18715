// Internal: dynamic processes (mpi_spawn.cpp starts children and connects them;
// mpi_dynamic.cpp holds the MPI calls). Design and limits: docs/mpi.md, "Dynamic processes".
#pragma once
#include <string>
#include <vector>

#include "mpi_impl.hpp"

namespace interlace::mpi::spawn {

// One command of MPI_Comm_spawn(_multiple): the program, its arguments (argv[1..]) and
// how many copies to start.
struct Command {
  std::string program;
  std::vector<std::string> args;
  int count = 0;
};

// Collective over the intracommunicator `comm`: the root starts `cmds` (significant there
// only), every member connects to the children and gets the intercommunicator.
MPI_Comm spawn(const char* call, const std::vector<Command>& cmds, int root, MPI_Comm comm,
               int* errcodes);

// MPI_Init of a spawned process: connects to the parents named by INTERLACE_PARENT.
void connect_to_parent();
MPI_Comm parent();  // MPI_COMM_NULL when not spawned or after disconnecting

// MPI_Comm_disconnect of a spawn intercommunicator ends the connection; false when
// `comm` is not one (plain MPI_Comm_free applies).
bool disconnect(MPI_Comm comm);

// The engine a communicator's traffic runs on: the world's, or a spawn connection's.
engine::Context& context_of(MPI_Comm comm);

}  // namespace interlace::mpi::spawn
