// Point-to-point calls. Every message travels as Datatype::bytes: contiguous buffers
// directly, derived types through a packed copy (pack_view / unpack_view).
#include <deque>

#include "compat/mpi/mpi_core.hpp"
#include "interlace/engine/context.hpp"

namespace interlace::mpi {
namespace {

using Kind = ReqObj::Kind;

struct Checked {
  const Communicator* c;
  const TypeObj* t;
};

// ZRLMPI counts 32-bit words and knows MPI_INT and MPI_FLOAT (docs/zrlmpi.md): a
// message to one of its nodes must consist of 4-byte elements.
void check_zrlmpi_type(const Communicator& c, int dest, const TypeObj& t) {
  const interlace::engine::Context& ctx = state().rt.context();
  if (ctx.foreign_count() == 0) return;
  const int w = c.world_rank_of(dest);
  if (!ctx.foreign(w)) return;
  const TypeObj& b = t.basic != MPI_DATATYPE_NULL ? type_obj(t.basic) : t;
  if (b.predefined && b.size == 4 && b.core) return;
  raise(MPI_ERR_TYPE, "datatype " + t.name + " cannot go to rank " + std::to_string(dest) + " (world rank " +
                          std::to_string(w) + "), a ZRLMPI node: only 4-byte types (MPI_INT, MPI_FLOAT, ...) "
                          "reach it, as ZRLMPI counts 32-bit words");
}

Checked check_send(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  const Communicator& c = comm_of(comm);
  check_count(count, "count");
  const TypeObj& t = type_obj(dt);
  check_peer(c, dest, "dest", false);
  check_tag(tag, false);
  if (dest != MPI_PROC_NULL) check_zrlmpi_type(c, dest, t);
  return {&c, &t};
}

Checked check_recv(int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
  const Communicator& c = comm_of(comm);
  check_count(count, "count");
  const TypeObj& t = type_obj(dt);
  check_peer(c, source, "source", true);
  check_tag(tag, true);
  return {&c, &t};
}

ReqObj start_send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  bool sync) {
  Checked k = check_send(count, dt, dest, tag, comm);
  Packed p = pack_view(buf, count, *k.t);
  ReqObj r;
  r.kind = Kind::p2p;
  r.comm = comm;
  r.p2p = sync ? k.c->issend(p.data, p.bytes, Datatype::bytes, dest, tag)
               : k.c->isend(p.data, p.bytes, Datatype::bytes, dest, tag);
  r.keep = p.tmp;
  return r;
}

ReqObj start_recv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
  Checked k = check_recv(count, dt, source, tag, comm);
  ReqObj r;
  r.kind = Kind::p2p;
  r.comm = comm;
  if (k.t->contiguous()) {  // straight into the user's buffer
    r.p2p = k.c->irecv(buf, data_bytes(*k.t, count), Datatype::bytes, source, tag);
    return r;
  }
  // A copy of the type: the user may free the datatype before the receive completes.
  auto type = std::make_shared<TypeObj>(*k.t);
  Unpacked u = unpack_view(buf, count, *type);
  r.p2p = k.c->irecv(u.data, u.bytes, Datatype::bytes, source, tag);
  if (u.tmp) {
    r.on_complete = [u, type](MPI_Status& st) { u.finish(static_cast<size_t>(st.il_bytes)); };
    r.keep = u.tmp;
  }
  return r;
}

void finish_blocking(ReqObj r, MPI_Status* status) {
  MPI_Status st = wait_local(std::move(r));
  if (status) *status = st;
  if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
}

// ---- buffered sends: copies sent eagerly, charged against the attached buffer ----------
struct Buffered {
  Request req;
  size_t charge = 0;
  std::shared_ptr<std::vector<std::byte>> data;
};
std::deque<Buffered> g_buffered;
size_t g_buffer_used = 0;

void reap_buffered() {
  for (auto it = g_buffered.begin(); it != g_buffered.end();) {
    bool done = true;
    try {
      done = it->req.test();
    } catch (const Error&) {
      // The send failed after MPI_Bsend returned: nothing can report it any more
      // (MPI gives buffered sends no request); its space is released.
    }
    if (!done) { ++it; continue; }
    g_buffer_used -= it->charge;
    it = g_buffered.erase(it);
  }
}

void bsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  Checked k = check_send(count, dt, dest, tag, comm);
  if (dest == MPI_PROC_NULL) return;
  State& s = state();
  if (!s.bsend_buf) raise(MPI_ERR_BUFFER, "no buffer is attached (call MPI_Buffer_attach)");
  reap_buffered();
  const size_t bytes = data_bytes(*k.t, count);
  const size_t charge = bytes + MPI_BSEND_OVERHEAD;
  const size_t total = static_cast<size_t>(s.bsend_size);
  if (g_buffer_used + charge > total)
    raise(MPI_ERR_BUFFER, "a message of " + std::to_string(bytes) + " bytes needs " +
                              std::to_string(charge) + " bytes (MPI_BSEND_OVERHEAD " +
                              std::to_string(MPI_BSEND_OVERHEAD) + ") of the attached buffer, " +
                              std::to_string(total - g_buffer_used) + " of " +
                              std::to_string(total) + " bytes are free");
  auto copy = std::make_shared<std::vector<std::byte>>(bytes);
  pack(buf, count, *k.t, copy->data());
  Request r = k.c->isend(copy->data(), bytes, Datatype::bytes, dest, tag);
  g_buffered.push_back(Buffered{std::move(r), charge, std::move(copy)});
  g_buffer_used += charge;
}

MPI_Request persistent(std::function<ReqObj()> make, MPI_Comm comm) {
  ReqObj r;
  r.kind = Kind::persistent_inactive;
  r.persistent = true;
  r.comm = comm;
  empty_status(&r.status);
  r.start = [make = std::move(make)](ReqObj& self) {
    ReqObj fresh = make();
    self.kind = fresh.kind;
    self.p2p = std::move(fresh.p2p);
    self.keep = std::move(fresh.keep);
    self.on_complete = std::move(fresh.on_complete);
  };
  return new_request(std::move(r));
}

void check_out(void* p, const char* name) {
  if (!p) raise(MPI_ERR_ARG, std::string(name) + " is a null pointer");
}

}  // namespace

void drain_buffered_sends() {
  for (Buffered& b : g_buffered) {
    try {
      b.req.wait();
    } catch (const Error&) {
      // See reap_buffered: a failed buffered send has no one to report to.
    }
  }
  g_buffered.clear();
  g_buffer_used = 0;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;
using interlace::Datatype;
using interlace::Communicator;

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Send", comm, [&] {
    Checked k = check_send(count, dt, dest, tag, comm);
    Packed p = pack_view(buf, count, *k.t);
    k.c->send(p.data, p.bytes, Datatype::bytes, dest, tag);
  });
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Rsend", comm, [&] {
    Checked k = check_send(count, dt, dest, tag, comm);
    Packed p = pack_view(buf, count, *k.t);
    k.c->send(p.data, p.bytes, Datatype::bytes, dest, tag);
  });
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Ssend", comm, [&] {
    Checked k = check_send(count, dt, dest, tag, comm);
    Packed p = pack_view(buf, count, *k.t);
    k.c->ssend(p.data, p.bytes, Datatype::bytes, dest, tag);
  });
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Bsend", comm, [&] { bsend(buf, count, dt, dest, tag, comm); });
}

int MPI_Recv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  return guard("MPI_Recv", comm, [&] {
    finish_blocking(start_recv(buf, count, dt, source, tag, comm), status);
  });
}

int MPI_Isend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return guard("MPI_Isend", comm, [&] {
    check_out(request, "request");
    *request = new_request(start_send(buf, count, dt, dest, tag, comm, false));
  });
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Irsend", comm, [&] {
    check_out(request, "request");
    *request = new_request(start_send(buf, count, dt, dest, tag, comm, false));
  });
}

int MPI_Issend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Issend", comm, [&] {
    check_out(request, "request");
    *request = new_request(start_send(buf, count, dt, dest, tag, comm, true));
  });
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Ibsend", comm, [&] {
    check_out(request, "request");
    bsend(buf, count, dt, dest, tag, comm);
    ReqObj r;  // the data is in the buffer: the request is complete
    r.kind = Kind::done;
    r.comm = comm;
    empty_status(&r.status);
    *request = new_request(std::move(r));
  });
}

int MPI_Irecv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return guard("MPI_Irecv", comm, [&] {
    check_out(request, "request");
    *request = new_request(start_recv(buf, count, dt, source, tag, comm));
  });
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Sendrecv", comm, [&] {
    check_recv(recvcount, recvtype, source, recvtag, comm);
    ReqObj send = start_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, false);
    MPI_Status st = wait_local(start_recv(recvbuf, recvcount, recvtype, source, recvtag, comm));
    MPI_Status sent = wait_local(std::move(send));
    if (status) *status = st;
    if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
    if (sent.MPI_ERROR != MPI_SUCCESS) raise_code(sent.MPI_ERROR);
  });
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Sendrecv_replace", comm, [&] {
    Checked k = check_send(count, dt, dest, sendtag, comm);
    check_recv(count, dt, source, recvtag, comm);
    // The outgoing data is copied first: the receive overwrites the same buffer.
    auto copy = std::make_shared<std::vector<std::byte>>(data_bytes(*k.t, count));
    pack(buf, count, *k.t, copy->data());
    ReqObj send;
    send.kind = Kind::p2p;
    send.comm = comm;
    send.p2p = k.c->isend(copy->data(), copy->size(), Datatype::bytes, dest, sendtag);
    send.keep = copy;
    MPI_Status st = wait_local(start_recv(buf, count, dt, source, recvtag, comm));
    MPI_Status sent = wait_local(std::move(send));
    if (status) *status = st;
    if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
    if (sent.MPI_ERROR != MPI_SUCCESS) raise_code(sent.MPI_ERROR);
  });
}

int MPI_Buffer_attach(void* buffer, int size) {
  return guard("MPI_Buffer_attach", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Buffer_attach");
    State& s = state();
    if (size < 0) raise(MPI_ERR_BUFFER, "size " + std::to_string(size) + " is negative");
    if (!buffer && size > 0) raise(MPI_ERR_BUFFER, "buffer is a null pointer");
    if (s.bsend_buf)
      raise(MPI_ERR_BUFFER, "a buffer of " + std::to_string(s.bsend_size) +
                                " bytes is already attached (detach it first)");
    s.bsend_buf = buffer;
    s.bsend_size = size;
  });
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  return guard("MPI_Buffer_detach", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Buffer_detach");
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

int MPI_Send_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return guard("MPI_Send_init", comm, [&] {
    check_out(request, "request");
    check_send(count, dt, dest, tag, comm);
    *request = persistent(
        [=] { return start_send(buf, count, dt, dest, tag, comm, false); }, comm);
  });
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return guard("MPI_Ssend_init", comm, [&] {
    check_out(request, "request");
    check_send(count, dt, dest, tag, comm);
    *request = persistent(
        [=] { return start_send(buf, count, dt, dest, tag, comm, true); }, comm);
  });
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return guard("MPI_Recv_init", comm, [&] {
    check_out(request, "request");
    check_recv(count, dt, source, tag, comm);
    *request = persistent([=] { return start_recv(buf, count, dt, source, tag, comm); }, comm);
  });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Probe", comm, [&] {
    const Communicator& c = comm_of(comm);
    check_peer(c, source, "source", true);
    check_tag(tag, true);
    to_mpi_status(c.probe(source, tag), status);
  });
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return guard("MPI_Iprobe", comm, [&] {
    const Communicator& c = comm_of(comm);
    check_peer(c, source, "source", true);
    check_tag(tag, true);
    check_out(flag, "flag");
    interlace::Status s;
    *flag = c.iprobe(source, tag, &s);
    if (*flag) to_mpi_status(s, status);
  });
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype dt, int* count) {
  return guard("MPI_Get_count", MPI_COMM_NULL, [&] {
    if (!status || !count) raise(MPI_ERR_ARG, "status or count is a null pointer");
    const TypeObj& t = type_obj(dt);
    const auto bytes = static_cast<size_t>(status->il_bytes);
    if (t.size == 0) *count = 0;
    else *count = bytes % t.size ? MPI_UNDEFINED : static_cast<int>(bytes / t.size);
  });
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype dt, int* count) {
  return guard("MPI_Get_elements", MPI_COMM_NULL, [&] {
    if (!status || !count) raise(MPI_ERR_ARG, "status or count is a null pointer");
    const TypeObj& t = type_obj(dt);
    const auto bytes = static_cast<size_t>(status->il_bytes);
    const long long n = elements_in(t, bytes);  // mpi_type_elements.cpp; -1: partial
    *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  });
}

}  // extern "C"
