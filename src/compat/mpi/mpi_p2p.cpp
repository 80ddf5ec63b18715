// Point-to-point calls. Every message travels as Datatype::bytes: contiguous buffers
// directly, derived types through a packed copy (pack_view / unpack_view).
#include <deque>

#include <climits>

#include "compat/mpi/mpi_p2p.hpp"
#include "interlace/engine/context.hpp"

namespace interlace::mpi {

using Kind = ReqObj::Kind;

namespace {

// ZRLMPI counts 32-bit words and knows MPI_INT and MPI_FLOAT (docs/zrlmpi.md): a
// message to one of its nodes must consist of 4-byte elements.
void check_zrlmpi_type(State& s, const Communicator& c, int dest, const TypeObj& t) {
  const interlace::engine::Context& ctx = s.rt.context();
  if (ctx.foreign_count() == 0) return;
  const int w = c.world_rank_of(dest);
  if (!ctx.foreign(w)) return;
  const TypeObj& b = t.basic != MPI_DATATYPE_NULL ? type_obj(t.basic) : t;
  if (b.predefined && b.size == 4 && b.core) return;
  raise(MPI_ERR_TYPE, "datatype " + t.name + " cannot go to rank " + std::to_string(dest) + " (world rank " +
                          std::to_string(w) + "), a ZRLMPI node: only 4-byte types (MPI_INT, MPI_FLOAT, ...) "
                          "reach it, as ZRLMPI counts 32-bit words");
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

}  // namespace

namespace {

// The communicator, count and datatype of a message in one pass over the process state
// (one state(), one liveness test, the two table reads): per 8-byte message the separate
// lookups cost about 100 instructions. Anything unusual (the runtime down, a bad handle,
// an uncommitted type, a negative count) takes the full lookups instead, which raise
// the same errors in the same order as always.
Checked lookup(State& s, int count, MPI_Datatype dt, MPI_Comm comm) {
  if (s.runtime_up && count >= 0) {
    const CommObj* co = s.comms.get(comm);
    const TypeObj* t = s.types.get(dt);
    if (co && !co->comm.is_null() && t && t->committed) return {&co->comm, t};
  }
  const Communicator& c = comm_of(comm);
  check_count(count, "count");
  return {&c, &type_obj(dt)};
}

}  // namespace

Checked check_send(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  State& s = state();
  Checked k = lookup(s, count, dt, comm);
  // A rank and a tag in range (the usual case) need no call; the checks name the bad value.
  if (dest < 0 || dest >= k.c->size()) check_peer(*k.c, dest, "dest", false);
  if (tag < 0 || tag > kTagUpperBound) check_tag(tag, false);
  if (dest != MPI_PROC_NULL) check_zrlmpi_type(s, *k.c, dest, *k.t);
  return k;
}

Checked check_recv(int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm) {
  Checked k = lookup(state(), count, dt, comm);
  if (source < 0 || source >= k.c->size()) check_peer(*k.c, source, "source", true);
  if (tag < 0 || tag > kTagUpperBound) check_tag(tag, true);
  return k;
}

int narrow_count(MPI_Count n, const char* what) {
  if (n < 0) raise(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(n) + " is negative");
  if (n > INT_MAX)
    raise(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(n) +
                             " is above what interlace's MPI carries (" + std::to_string(INT_MAX) + ")");
  return static_cast<int>(n);
}

void check_out(const void* p, const char* name) {
  if (!p) raise(MPI_ERR_ARG, std::string(name) + " is a null pointer");
}

ReqObj start_send(const Communicator& c, const void* buf, int count, const TypeObj& t, int dest,
                  int tag, MPI_Comm comm, bool sync) {
  Packed p = pack_view(buf, count, t);
  ReqObj r;
  r.kind = Kind::p2p;
  r.comm = comm;
  r.p2p = sync ? c.issend(p.data, p.bytes, Datatype::bytes, dest, tag)
               : c.isend(p.data, p.bytes, Datatype::bytes, dest, tag);
  r.keep = p.tmp;
  return r;
}

ReqObj start_recv(const Communicator& c, void* buf, int count, const TypeObj& t, int source,
                  int tag, MPI_Comm comm, std::shared_ptr<const TypeObj> kept) {
  ReqObj r;
  r.kind = Kind::p2p;
  r.comm = comm;
  if (t.contiguous()) {  // straight into the user's buffer
    r.p2p = c.irecv(buf, data_bytes(t, count), Datatype::bytes, source, tag);
    return r;
  }
  // The unpack needs the type after the user may have freed the datatype: the caller's
  // own copy when it keeps one (persistent requests), else a copy made here.
  std::shared_ptr<const TypeObj> type = kept ? std::move(kept) : keep_type(t);
  Unpacked u = unpack_view(buf, count, *type);
  r.p2p = c.irecv(u.data, u.bytes, Datatype::bytes, source, tag);
  if (u.tmp) {
    r.on_complete = [u, type](MPI_Status& st) { u.finish(static_cast<size_t>(st.il_bytes)); };
    r.keep = u.tmp;
  }
  return r;
}

ReqObj done_request(MPI_Comm comm) {
  ReqObj r;
  r.kind = Kind::done;
  r.comm = comm;
  empty_status(&r.status);
  return r;
}

void finish_blocking(ReqObj r, MPI_Status* status) {
  MPI_Status st = wait_local(std::move(r));
  if (status) *status = st;
  if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
}

void bsend(const void* buf, int count, const TypeObj& t, int dest, int tag, MPI_Comm comm) {
  if (dest == MPI_PROC_NULL) return;
  const Communicator& c = comm_of(comm);
  State& s = state();
  if (!s.bsend_buf) raise(MPI_ERR_BUFFER, "no buffer is attached (call MPI_Buffer_attach)");
  reap_buffered();
  const size_t bytes = data_bytes(t, count);
  const size_t charge = bytes + MPI_BSEND_OVERHEAD;
  const size_t total = static_cast<size_t>(s.bsend_size);
  if (g_buffer_used + charge > total)
    raise(MPI_ERR_BUFFER, "a message of " + std::to_string(bytes) + " bytes needs " +
                              std::to_string(charge) + " bytes (MPI_BSEND_OVERHEAD " +
                              std::to_string(MPI_BSEND_OVERHEAD) + ") of the attached buffer, " +
                              std::to_string(total - g_buffer_used) + " of " +
                              std::to_string(total) + " bytes are free");
  auto copy = std::make_shared<std::vector<std::byte>>(bytes);
  pack(buf, count, t, copy->data());
  Request r = c.isend(copy->data(), bytes, Datatype::bytes, dest, tag);
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
    self.status = fresh.status;
  };
  return new_request(std::move(r));
}

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
using interlace::Request;

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return guard("MPI_Send", comm, [&] {
    Checked k = check_send(count, dt, dest, tag, comm);
    if (k.t->contiguous())  // no Packed (and its shared_ptr) to build and drop
      return k.c->send(buf, data_bytes(*k.t, count), Datatype::bytes, dest, tag);
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
  return guard("MPI_Bsend", comm, [&] {
    Checked k = check_send(count, dt, dest, tag, comm);
    bsend(buf, count, *k.t, dest, tag, comm);
  });
}

int MPI_Recv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  return guard("MPI_Recv", comm, [&] {
    Checked k = check_recv(count, dt, source, tag, comm);
    if (!k.t->contiguous())
      return finish_blocking(start_recv(*k.c, buf, count, *k.t, source, tag, comm), status);
    // Contiguous: the engine's request alone, as Communicator::recv does. Building and
    // settling a ReqObj (two std::functions, two shared_ptrs, a vector) cost about
    // 0.05 us per 8-byte ping-pong over the native call.
    Request r = k.c->irecv(buf, data_bytes(*k.t, count), Datatype::bytes, source, tag);
    try {
      r.wait();
    } catch (...) {
      to_mpi_status(r.status(), status);  // source and tag even of a truncated message
      throw;
    }
    to_mpi_status(r.status(), status);
  });
}

int MPI_Isend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return guard("MPI_Isend", comm, [&] {
    check_out(request, "request");
    Checked k = check_send(count, dt, dest, tag, comm);
    if (k.t->contiguous()) {  // the engine's request, put straight into its slot
      *request = new_request(k.c->isend(buf, data_bytes(*k.t, count), Datatype::bytes, dest, tag), comm);
      return;
    }
    *request = new_request(start_send(*k.c, buf, count, *k.t, dest, tag, comm, false));
  });
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Irsend", comm, [&] {
    check_out(request, "request");
    Checked k = check_send(count, dt, dest, tag, comm);
    *request = new_request(start_send(*k.c, buf, count, *k.t, dest, tag, comm, false));
  });
}

int MPI_Issend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Issend", comm, [&] {
    check_out(request, "request");
    Checked k = check_send(count, dt, dest, tag, comm);
    *request = new_request(start_send(*k.c, buf, count, *k.t, dest, tag, comm, true));
  });
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return guard("MPI_Ibsend", comm, [&] {
    check_out(request, "request");
    Checked k = check_send(count, dt, dest, tag, comm);
    bsend(buf, count, *k.t, dest, tag, comm);
    *request = new_request(done_request(comm));  // the data is in the buffer: complete
  });
}

int MPI_Irecv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return guard("MPI_Irecv", comm, [&] {
    check_out(request, "request");
    Checked k = check_recv(count, dt, source, tag, comm);
    if (k.t->contiguous()) {
      *request = new_request(k.c->irecv(buf, data_bytes(*k.t, count), Datatype::bytes, source, tag), comm);
      return;
    }
    *request = new_request(start_recv(*k.c, buf, count, *k.t, source, tag, comm));
  });
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  return guard("MPI_Sendrecv", comm, [&] {
    Checked rk = check_recv(recvcount, recvtype, source, recvtag, comm);
    Checked sk = check_send(sendcount, sendtype, dest, sendtag, comm);
    ReqObj send = start_send(*sk.c, sendbuf, sendcount, *sk.t, dest, sendtag, comm, false);
    MPI_Status st = wait_local(start_recv(*rk.c, recvbuf, recvcount, *rk.t, source, recvtag, comm));
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
    MPI_Status st = wait_local(start_recv(*k.c, buf, count, *k.t, source, recvtag, comm));
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
    *request = send_init(buf, count, dt, dest, tag, comm, false);
  });
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return guard("MPI_Ssend_init", comm, [&] {
    check_out(request, "request");
    *request = send_init(buf, count, dt, dest, tag, comm, true);
  });
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return guard("MPI_Recv_init", comm, [&] {
    check_out(request, "request");
    *request = recv_init(buf, count, dt, source, tag, comm);
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
