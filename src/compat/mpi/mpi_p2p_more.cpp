// MPI_Isendrecv(_replace) (MPI 4) and the persistent requests' bodies. The
// bodies take int counts; the large-count forms (mpi_p2p_c.cpp) narrow and call them.
#include "compat/mpi/mpi_p2p.hpp"

namespace interlace::mpi {

// One request for both halves: the receive is the request's main operation (its status
// is the one reported), the send goes in `also`.
ReqObj isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm) {
  Checked rk = check_recv(recvcount, recvtype, source, recvtag, comm);
  Checked sk = check_send(sendcount, sendtype, dest, sendtag, comm);
  ReqObj send = start_send(*sk.c, sendbuf, sendcount, *sk.t, dest, sendtag, comm, false);
  ReqObj r = start_recv(*rk.c, recvbuf, recvcount, *rk.t, source, recvtag, comm);
  r.also.push_back(std::move(send.p2p));
  if (send.keep) {
    auto both = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(
        std::move(r.keep), std::move(send.keep));
    r.keep = both;
  }
  return r;
}

ReqObj isendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm) {
  Checked k = check_send(count, dt, dest, sendtag, comm);
  check_recv(count, dt, source, recvtag, comm);
  // The outgoing data is copied first: the receive overwrites the same buffer.
  auto copy = std::make_shared<std::vector<std::byte>>(data_bytes(*k.t, count));
  pack(buf, count, *k.t, copy->data());
  Request send = k.c->isend(copy->data(), copy->size(), Datatype::bytes, dest, sendtag);
  ReqObj r = start_recv(*k.c, buf, count, *k.t, source, recvtag, comm);
  r.also.push_back(std::move(send));
  auto both = std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(
      std::move(r.keep), copy);
  r.keep = both;
  return r;
}

MPI_Request bsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  auto t = keep_type(*check_send(count, dt, dest, tag, comm).t);
  return persistent(
      [=] {
        // MPI_Start copies into the attached buffer; the request is then complete.
        bsend(buf, count, *t, dest, tag, comm);
        return done_request(comm);
      },
      comm);
}

MPI_Request send_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      bool sync) {
  auto t = keep_type(*check_send(count, dt, dest, tag, comm).t);
  return persistent(
      [=] { return start_send(comm_of(comm), buf, count, *t, dest, tag, comm, sync); }, comm);
}

MPI_Request recv_init(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
  auto t = keep_type(*check_recv(count, dt, source, tag, comm).t);
  return persistent(
      [=] { return start_recv(comm_of(comm), buf, count, *t, source, tag, comm, t); }, comm);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Isendrecv", comm, [&] {
    check_out(request, "request");
    *request = new_request(isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                     recvcount, recvtype, source, recvtag, comm));
  });
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Isendrecv_replace", comm, [&] {
    check_out(request, "request");
    *request = new_request(isendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm));
  });
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return guard("MPI_Bsend_init", comm, [&] {
    check_out(request, "request");
    *request = bsend_init(buf, count, dt, dest, tag, comm);
  });
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return guard("MPI_Rsend_init", comm, [&] {
    check_out(request, "request");
    // A ready send is a standard send here: correct for every program where the
    // receive is posted first, which MPI requires of ready sends.
    *request = send_init(buf, count, dt, dest, tag, comm, false);
  });
}

}  // extern "C"
