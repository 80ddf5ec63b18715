// Internal to the "core" files of the MPI layer (env, error, p2p, request): helpers
// they share that the other MPI files do not need.
#pragma once
#include <string>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

// The message behind an error code made by make_error_code ("" for a plain class or
// a code whose message was already recycled).
std::string error_message_of(int code);
// Raises the error held by a code (its class and message) under the current call.
[[noreturn]] void raise_code(int code);
// This process's rank in MPI_COMM_WORLD, or -1 before MPI_Init.
int world_rank_or_unknown() noexcept;
// Waits until every MPI_Bsend/Ibsend copy has been sent (Buffer_detach, Finalize).
void drain_buffered_sends();
// Checks a destination / source rank and a tag against comm, raising MPI_ERR_RANK /
// MPI_ERR_TAG naming the value. `what` is "dest" or "source".
void check_peer(const Communicator& c, int rank, const char* what, bool any_allowed);
void check_tag(int tag, bool any_allowed);

}  // namespace interlace::mpi

namespace interlace::mpi {
// Settles r at once (blocking) and returns its final status; a failure is a code
// in MPI_ERROR (raise it with raise_code). For the blocking calls built on requests.
MPI_Status wait_local(ReqObj r);
// Drops every request (freed-but-running ones included) while the runtime still
// exists: MPI_Finalize calls it before Runtime::finalize.
void release_requests();
void release_messages();  // claimed, never received messages (mpi_mprobe.cpp)
// Finishes r's operation if it can (blocking when `block`): runs its on_complete and
// stores its status (kind done). True once done or an inactive persistent request.
bool settle(ReqObj& r, bool block);
// Runs a generalized request's free_fn once, when its handle goes (a failure code lands
// in st->MPI_ERROR when st is given and holds no error yet).
void free_request_resources(ReqObj& r, MPI_Status* st);
// Keeps a request freed while running until its operation completes.
void orphan(ReqObj r);
bool is_active(MPI_Request h);  // a live handle that is not an inactive persistent one
// The communicator whose error handler reports errors of these requests.
MPI_Comm comm_of_request(MPI_Request h);
MPI_Comm comm_of_requests(int count, const MPI_Request* reqs);
// MPI_ERR_COUNT / MPI_ERR_ARG / MPI_ERR_REQUEST for a bad request array.
void check_requests(int count, const MPI_Request* reqs);
}  // namespace interlace::mpi
