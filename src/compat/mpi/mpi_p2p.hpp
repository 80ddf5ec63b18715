// Internal to the point-to-point files of the MPI layer (mpi_p2p*.cpp, mpi_mprobe.cpp,
// mpi_part*.cpp): argument checks and the starts of sends and receives they share.
// Starts take the datatype as an object, not a handle: persistent requests start with
// their own copy, so the user may free the type after MPI_*_init (MPI says so). They take
// the communicator the caller's check already looked up, so a message pays for one lookup.
#pragma once
#include <functional>
#include <memory>

#include "compat/mpi/mpi_core.hpp"

namespace interlace::mpi {

struct Checked {
  const Communicator* c;
  const TypeObj* t;
};
Checked check_send(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
Checked check_recv(int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm);
// MPI_ERR_COUNT naming `what` for a large count that is negative or above INT_MAX (what
// the MPI layer carries); else the count as an int.
int narrow_count(MPI_Count n, const char* what);
void check_out(const void* p, const char* name);  // MPI_ERR_ARG for a null output

ReqObj start_send(const Communicator& c, const void* buf, int count, const TypeObj& t, int dest,
                  int tag, MPI_Comm comm, bool sync);
// kept: a copy of t the caller already holds (else one is made for a derived type).
ReqObj start_recv(const Communicator& c, void* buf, int count, const TypeObj& t, int source,
                  int tag, MPI_Comm comm, std::shared_ptr<const TypeObj> kept = nullptr);
// A finished request (e.g. a buffered send whose data is in the attached buffer).
ReqObj done_request(MPI_Comm comm);
// Waits for r; stores its status; raises its error.
void finish_blocking(ReqObj r, MPI_Status* status);
// MPI_Bsend's copy into the attached buffer, sent in the background.
void bsend(const void* buf, int count, const TypeObj& t, int dest, int tag, MPI_Comm comm);
// An inactive persistent request; MPI_Start runs make() for each round.
MPI_Request persistent(std::function<ReqObj()> make, MPI_Comm comm);
// mpi_p2p_more.cpp: bodies shared with the large-count forms.
ReqObj isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm);
ReqObj isendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm);
MPI_Request bsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
MPI_Request send_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      bool sync);
MPI_Request recv_init(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm);
// MPI_Mrecv/Imrecv's receive of message *m (mpi_mprobe.cpp).
ReqObj receive_message_checked(void* buf, int count, MPI_Datatype dt, MPI_Message* m);
// A copy of t that lives as long as the holder (persistent requests).
inline std::shared_ptr<const TypeObj> keep_type(const TypeObj& t) {
  return std::make_shared<const TypeObj>(t);
}

}  // namespace interlace::mpi
