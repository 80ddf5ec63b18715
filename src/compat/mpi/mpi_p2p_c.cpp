// Large-count point-to-point (MPI 4 `_c` forms): MPI_Count counts, narrowed to what the
// MPI layer carries (MPI_ERR_COUNT naming a count above INT_MAX), then the int bodies.
#include <climits>

#include "compat/mpi/mpi_p2p.hpp"

using namespace interlace::mpi;
using interlace::Datatype;

namespace {

void send_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
            bool sync) {
  const int n = narrow_count(count, "count");
  Checked k = check_send(n, dt, dest, tag, comm);
  Packed p = pack_view(buf, n, *k.t);
  if (sync) k.c->ssend(p.data, p.bytes, Datatype::bytes, dest, tag);
  else k.c->send(p.data, p.bytes, Datatype::bytes, dest, tag);
}

MPI_Request isend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, bool sync) {
  const int n = narrow_count(count, "count");
  Checked k = check_send(n, dt, dest, tag, comm);
  return new_request(start_send(*k.c, buf, n, *k.t, dest, tag, comm, sync));
}

}  // namespace

extern "C" {

int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Send_c", comm, [&] { send_c(buf, count, dt, dest, tag, comm, false); });
}

int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Rsend_c", comm, [&] { send_c(buf, count, dt, dest, tag, comm, false); });
}

int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Ssend_c", comm, [&] { send_c(buf, count, dt, dest, tag, comm, true); });
}

int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Bsend_c", comm, [&] {
    const int n = narrow_count(count, "count");
    bsend(buf, n, *check_send(n, dt, dest, tag, comm).t, dest, tag, comm);
  });
}

int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Status* status) {
  return guard("MPI_Recv_c", comm, [&] {
    const int n = narrow_count(count, "count");
    Checked k = check_recv(n, dt, source, tag, comm);
    finish_blocking(start_recv(*k.c, buf, n, *k.t, source, tag, comm), status);
  });
}

int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return guard("MPI_Isend_c", comm, [&] {
    check_out(request, "request");
    *request = isend_c(buf, count, dt, dest, tag, comm, false);
  });
}

int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Irsend_c", comm, [&] {
    check_out(request, "request");
    *request = isend_c(buf, count, dt, dest, tag, comm, false);
  });
}

int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Issend_c", comm, [&] {
    check_out(request, "request");
    *request = isend_c(buf, count, dt, dest, tag, comm, true);
  });
}

int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Ibsend_c", comm, [&] {
    check_out(request, "request");
    const int n = narrow_count(count, "count");
    bsend(buf, n, *check_send(n, dt, dest, tag, comm).t, dest, tag, comm);
    *request = new_request(done_request(comm));
  });
}

int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return guard("MPI_Irecv_c", comm, [&] {
    check_out(request, "request");
    const int n = narrow_count(count, "count");
    Checked k = check_recv(n, dt, source, tag, comm);
    *request = new_request(start_recv(*k.c, buf, n, *k.t, source, tag, comm));
  });
}

int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Send_init_c", comm, [&] {
    check_out(request, "request");
    *request = send_init(buf, narrow_count(count, "count"), dt, dest, tag, comm, false);
  });
}

int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Rsend_init_c", comm, [&] {
    check_out(request, "request");
    *request = send_init(buf, narrow_count(count, "count"), dt, dest, tag, comm, false);
  });
}

int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Ssend_init_c", comm, [&] {
    check_out(request, "request");
    *request = send_init(buf, narrow_count(count, "count"), dt, dest, tag, comm, true);
  });
}

int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Bsend_init_c", comm, [&] {
    check_out(request, "request");
    *request = bsend_init(buf, narrow_count(count, "count"), dt, dest, tag, comm);
  });
}

int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Recv_init_c", comm, [&] {
    check_out(request, "request");
    *request = recv_init(buf, narrow_count(count, "count"), dt, source, tag, comm);
  });
}

int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Sendrecv_c", comm, [&] {
    finish_blocking(isendrecv(sendbuf, narrow_count(sendcount, "sendcount"), sendtype, dest,
                              sendtag, recvbuf, narrow_count(recvcount, "recvcount"), recvtype,
                              source, recvtag, comm),
                    status);
  });
}

int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Sendrecv_replace_c", comm, [&] {
    finish_blocking(isendrecv_replace(buf, narrow_count(count, "count"), dt, dest, sendtag,
                                      source, recvtag, comm),
                    status);
  });
}

int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Isendrecv_c", comm, [&] {
    check_out(request, "request");
    *request = new_request(isendrecv(sendbuf, narrow_count(sendcount, "sendcount"), sendtype,
                                     dest, sendtag, recvbuf, narrow_count(recvcount, "recvcount"),
                                     recvtype, source, recvtag, comm));
  });
}

int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return guard("MPI_Isendrecv_replace_c", comm, [&] {
    check_out(request, "request");
    *request = new_request(isendrecv_replace(buf, narrow_count(count, "count"), dt, dest,
                                             sendtag, source, recvtag, comm));
  });
}

int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype dt, MPI_Message* message,
                MPI_Status* status) {
  return guard("MPI_Mrecv_c", MPI_COMM_NULL, [&] {
    finish_blocking(receive_message_checked(buf, narrow_count(count, "count"), dt, message),
                    status);
  });
}

int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype dt, MPI_Message* message,
                 MPI_Request* request) {
  return guard("MPI_Imrecv_c", MPI_COMM_NULL, [&] {
    check_out(request, "request");
    *request = new_request(receive_message_checked(buf, narrow_count(count, "count"), dt, message));
  });
}

int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return guard("MPI_Buffer_attach_c", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Buffer_attach_c");
    if (size > INT_MAX)
      raise(MPI_ERR_BUFFER, "size " + std::to_string(size) + " is above what interlace's MPI "
                            "carries (" + std::to_string(INT_MAX) + ")");
    State& s = state();
    if (size < 0) raise(MPI_ERR_BUFFER, "size " + std::to_string(size) + " is negative");
    if (!buffer && size > 0) raise(MPI_ERR_BUFFER, "buffer is a null pointer");
    if (s.bsend_buf)
      raise(MPI_ERR_BUFFER, "a buffer of " + std::to_string(s.bsend_size) +
                                " bytes is already attached (detach it first)");
    s.bsend_buf = buffer;
    s.bsend_size = static_cast<int>(size);
  });
}

int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return guard("MPI_Buffer_detach_c", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Buffer_detach_c");
    check_out(buffer_addr, "buffer_addr");
    check_out(size, "size");
    drain_buffered_sends();  // MPI: detach blocks until the buffered messages are sent
    State& s = state();
    *static_cast<void**>(buffer_addr) = s.bsend_buf;
    *size = s.bsend_size;
    s.bsend_buf = nullptr;
    s.bsend_size = 0;
  });
}

}  // extern "C"
