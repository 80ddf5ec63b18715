// Matched probes: MPI_Mprobe/Improbe take the message out of matching (the engine's
// claim), so no other receive or probe, of any thread, can get it; MPI_Mrecv/Imrecv
// then receive exactly that message. A message handle is an index into a table of
// claimed messages; MPI_MESSAGE_NO_PROC stands for a probe of MPI_PROC_NULL.
#include "compat/mpi/mpi_p2p.hpp"
#include "interlace/p2p/matched.hpp"

namespace interlace::mpi {
namespace {

struct MsgObj {
  interlace::ClaimedMessage claimed;
  MPI_Comm comm = MPI_COMM_NULL;
};
HandleTable<MsgObj> g_messages;

void check_probe(int source, int tag, MPI_Comm comm) {
  const Communicator& c = comm_of(comm);
  check_peer(c, source, "source", true);
  check_tag(tag, true);
}

MPI_Message keep_message(interlace::ClaimedMessage claimed, MPI_Comm comm) {
  return g_messages.add(MsgObj{std::move(claimed), comm});
}

// For guard()'s argument, evaluated before guard takes the MPI lock.
MPI_Comm comm_of_message(const MPI_Message* m) {
  CallLock lock;
  const MsgObj* o = m && state().runtime_up ? g_messages.get(*m) : nullptr;
  return o ? o->comm : MPI_COMM_NULL;
}

// Receives message *m into (buf, count, dt); *m becomes MPI_MESSAGE_NULL.
ReqObj receive_message(void* buf, int count, MPI_Datatype dt, MPI_Message* m) {
  check_out(m, "message");
  check_count(count, "count");
  const TypeObj& t = type_obj(dt);
  if (*m == MPI_MESSAGE_NO_PROC) {
    *m = MPI_MESSAGE_NULL;
    ReqObj r = done_request(MPI_COMM_NULL);
    r.status.MPI_SOURCE = MPI_PROC_NULL;
    r.status.MPI_TAG = MPI_ANY_TAG;
    return r;
  }
  MsgObj* o = g_messages.get(*m);
  if (!o)
    raise(MPI_ERR_REQUEST, (*m == MPI_MESSAGE_NULL ? std::string("MPI_MESSAGE_NULL")
                                                    : "message " + std::to_string(*m)) +
                               " is not a valid message (from MPI_Mprobe/MPI_Improbe, received once)");
  ReqObj r;
  r.kind = ReqObj::Kind::p2p;
  r.comm = o->comm;
  if (t.contiguous()) {
    r.p2p = interlace::receive_claimed(o->claimed, buf, data_bytes(t, count));
  } else {
    auto type = std::make_shared<TypeObj>(t);
    Unpacked u = unpack_view(buf, count, *type);
    r.p2p = interlace::receive_claimed(o->claimed, u.data, u.bytes);
    if (u.tmp) {
      r.on_complete = [u, type](MPI_Status& st) { u.finish(static_cast<size_t>(st.il_bytes)); };
      r.keep = u.tmp;
    }
  }
  g_messages.remove(*m);
  *m = MPI_MESSAGE_NULL;
  return r;
}

}  // namespace

void release_messages() { g_messages.clear(); }

// For the large-count forms (mpi_p2p_c.cpp).
ReqObj receive_message_checked(void* buf, int count, MPI_Datatype dt, MPI_Message* m) {
  return receive_message(buf, count, dt, m);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return guard("MPI_Mprobe", comm, [&] {
    check_probe(source, tag, comm);
    check_out(message, "message");
    if (source == MPI_PROC_NULL) {
      *message = MPI_MESSAGE_NO_PROC;
      interlace::Status s{MPI_PROC_NULL, MPI_ANY_TAG, 0, interlace::Errc::ok, false};
      return to_mpi_status(s, status);
    }
    interlace::Status s;
    interlace::ClaimedMessage c = interlace::claim_blocking(comm_of(comm), source, tag, &s);
    *message = keep_message(std::move(c), comm);
    to_mpi_status(s, status);
  });
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  return guard("MPI_Improbe", comm, [&] {
    check_probe(source, tag, comm);
    check_out(flag, "flag");
    check_out(message, "message");
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      *message = MPI_MESSAGE_NO_PROC;
      interlace::Status s{MPI_PROC_NULL, MPI_ANY_TAG, 0, interlace::Errc::ok, false};
      return to_mpi_status(s, status);
    }
    interlace::Status s;
    interlace::ClaimedMessage c;
    *flag = interlace::try_claim(comm_of(comm), source, tag, &c, &s);
    if (!*flag) return;
    *message = keep_message(std::move(c), comm);
    to_mpi_status(s, status);
  });
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype dt, MPI_Message* message, MPI_Status* status) {
  return guard("MPI_Mrecv", comm_of_message(message), [&] {
    finish_blocking(receive_message(buf, count, dt, message), status);
  });
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype dt, MPI_Message* message,
               MPI_Request* request) {
  return guard("MPI_Imrecv", comm_of_message(message), [&] {
    check_out(request, "request");
    *request = new_request(receive_message(buf, count, dt, message));
  });
}

}  // extern "C"
