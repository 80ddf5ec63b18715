// OMPIF messaging: rank/size, blocking send/recv (tags 0..255), and the paper's
// collectives: a broadcast from the root to every device and the in-place allgather of
// Fig. 4 (each rank sends its block straight to r+1, r+2, ... wrapping around).
#include <climits>
#include <vector>

#include "compat/ompif/ompif_state.hpp"
#include "interlace/p2p/transport.hpp"

using interlace::Communicator;
using interlace::Datatype;
using interlace::Errc;
using interlace::throw_error;

namespace {

// Collective traffic on internal tags: user receives (tags 0..255) never match it.
constexpr int kTagBcast = interlace::p2p::kTagModelBase - 90;
constexpr int kTagAllgather = interlace::p2p::kTagModelBase - 91;

const char* type_name(OMPIF_Datatype t) {
  static const char* names[] = {"OMPIF_INT", "OMPIF_DOUBLE", "OMPIF_FLOAT", "OMPIF_CHAR",
                                "OMPIF_UNSIGNED_CHAR", "OMPIF_SHORT", "OMPIF_UNSIGNED_SHORT",
                                "OMPIF_UNSIGNED", "OMPIF_LONG", "OMPIF_UNSIGNED_LONG",
                                "OMPIF_LONG_LONG", "OMPIF_UNSIGNED_LONG_LONG", "OMPIF_BYTE",
                                "OMPIF_INT8_T", "OMPIF_INT16_T", "OMPIF_INT32_T",
                                "OMPIF_INT64_T", "OMPIF_UINT8_T", "OMPIF_UINT16_T",
                                "OMPIF_UINT32_T", "OMPIF_UINT64_T"};
  auto i = static_cast<unsigned>(t);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "invalid";
}

template <class T> constexpr Datatype int_type() {
  if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? Datatype::int8 : Datatype::uint8;
  if constexpr (sizeof(T) == 2) return std::is_signed_v<T> ? Datatype::int16 : Datatype::uint16;
  if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? Datatype::int32 : Datatype::uint32;
  return std::is_signed_v<T> ? Datatype::int64 : Datatype::uint64;
}

Datatype to_dt(OMPIF_Datatype t) {
  switch (t) {
    case OMPIF_INT: return int_type<int>();
    case OMPIF_DOUBLE: return Datatype::float64;
    case OMPIF_FLOAT: return Datatype::float32;
    case OMPIF_CHAR: return int_type<signed char>();
    case OMPIF_UNSIGNED_CHAR: return Datatype::uint8;
    case OMPIF_SHORT: return int_type<short>();
    case OMPIF_UNSIGNED_SHORT: return int_type<unsigned short>();
    case OMPIF_UNSIGNED: return int_type<unsigned>();
    case OMPIF_LONG: return int_type<long>();
    case OMPIF_UNSIGNED_LONG: return int_type<unsigned long>();
    case OMPIF_LONG_LONG: return int_type<long long>();
    case OMPIF_UNSIGNED_LONG_LONG: return int_type<unsigned long long>();
    case OMPIF_BYTE: return Datatype::bytes;
    case OMPIF_INT8_T: return Datatype::int8;
    case OMPIF_INT16_T: return Datatype::int16;
    case OMPIF_INT32_T: return Datatype::int32;
    case OMPIF_INT64_T: return Datatype::int64;
    case OMPIF_UINT8_T: return Datatype::uint8;
    case OMPIF_UINT16_T: return Datatype::uint16;
    case OMPIF_UINT32_T: return Datatype::uint32;
    case OMPIF_UINT64_T: return Datatype::uint64;
  }
  throw_error(Errc::invalid_datatype,
              "datatype " + std::to_string(static_cast<int>(t)) +
                  " is not an OMPIF_Datatype (OMPIF_INT .. OMPIF_UINT64_T: 0..20)");
}

void check_comm(OMPIF_Comm c) {
  if (c != OMPIF_COMM_WORLD)
    throw_error(Errc::invalid_comm, "communicator " + std::to_string(static_cast<int>(c)) +
                                        " is not OMPIF_COMM_WORLD (the only one)");
}

void check_count(int count, const void* data) {
  if (count < 0)
    throw_error(Errc::invalid_count, "count " + std::to_string(count) + " is negative");
  if (count > 0 && !data)
    throw_error(Errc::invalid_argument, "null buffer with count " + std::to_string(count));
}

void check_peer(const Communicator& w, int r, const char* what) {
  if (r < 0 || r >= w.size())
    throw_error(Errc::invalid_rank, std::string(what) + " " + std::to_string(r) +
                                        " is not a rank of OMPIF_COMM_WORLD (size " +
                                        std::to_string(w.size()) + ")");
}

void check_tag(int tag) {
  if (tag < 0 || tag > 255)
    throw_error(Errc::invalid_tag,
                "tag " + std::to_string(tag) + " does not fit OMPIF's 8-bit tags (0..255)");
}

// The checks both directions share; returns the communicator to use.
const Communicator& checked(const char* call, const void* data, int count, OMPIF_Datatype dt,
                            int peer, const char* role, int tag, OMPIF_Comm c, Datatype* t) {
  check_comm(c);
  check_tag(tag);
  *t = to_dt(dt);
  check_count(count, data);
  const Communicator& w = ompif::world(call);
  check_peer(w, peer, role);
  return w;
}

void do_send(const void* data, int count, OMPIF_Datatype dt, int dest, int tag, OMPIF_Comm c) {
  Datatype t;
  const Communicator& w = checked("OMPIF_Send", data, count, dt, dest, "destination", tag, c, &t);
  w.send(data, static_cast<size_t>(count), t, dest, tag);
}

void do_recv(void* data, int count, OMPIF_Datatype dt, int src, int tag, OMPIF_Comm c) {
  Datatype t;
  const Communicator& w = checked("OMPIF_Recv", data, count, dt, src, "source", tag, c, &t);
  // Built only on failure: a receive that matches costs no string.
  auto what = [&] {
    return "the message from rank " + std::to_string(src) + " with tag " + std::to_string(tag);
  };
  interlace::Status st;
  try {
    st = w.recv(data, static_cast<size_t>(count), t, src, tag);
  } catch (const interlace::TruncationError& e) {
    throw_error(Errc::truncated, what() + " is longer than the receive's count " +
                                     std::to_string(count) + " " + type_name(dt) + " (" +
                                     e.what() + ")");
  }
  size_t want = static_cast<size_t>(count) * interlace::datatype_size(t);
  if (st.bytes != want)
    throw_error(Errc::invalid_count,
                what() + " has " + std::to_string(st.bytes) + " bytes, but the receive's count " +
                    std::to_string(count) + " " + type_name(dt) + " is " +
                    std::to_string(want) + " bytes");
}

}  // namespace

extern "C" {

int OMPIF_Comm_rank(OMPIF_Comm c) {
  return ompif::guarded("OMPIF_Comm_rank", [&] {
    check_comm(c);
    return ompif::world("OMPIF_Comm_rank").rank();
  }, -1);
}

int OMPIF_Comm_size(OMPIF_Comm c) {
  return ompif::guarded("OMPIF_Comm_size", [&] {
    check_comm(c);
    return ompif::world("OMPIF_Comm_size").size();
  }, -1);
}

void(OMPIF_Send)(const void* data, int count, OMPIF_Datatype datatype, int destination,
                 uint8_t tag, OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Send",
                 [&] { do_send(data, count, datatype, destination, tag, communicator); });
}

void(OMPIF_Recv)(void* data, int count, OMPIF_Datatype datatype, int source, uint8_t tag,
                 OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Recv",
                 [&] { do_recv(data, count, datatype, source, tag, communicator); });
}

void il_ompif_send_checked(const void* data, int count, OMPIF_Datatype datatype,
                           int destination, int tag, OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Send",
                 [&] { do_send(data, count, datatype, destination, tag, communicator); });
}

void il_ompif_recv_checked(void* data, int count, OMPIF_Datatype datatype, int source,
                           int tag, OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Recv",
                 [&] { do_recv(data, count, datatype, source, tag, communicator); });
}

void OMPIF_Bcast(void* data, int count, OMPIF_Datatype datatype, int root,
                 OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Bcast", [&] {
    check_comm(communicator);
    Datatype t = to_dt(datatype);
    check_count(count, data);
    const Communicator& w = ompif::world("OMPIF_Bcast");
    check_peer(w, root, "root");
    const auto& cs = w.group_state();
    if (w.rank() != root) {
      interlace::p2p::internal_irecv(cs, data, static_cast<size_t>(count), t, root, kTagBcast)
          .wait();
      return;
    }
    std::vector<interlace::Request> reqs;
    for (int r = 0; r < w.size(); ++r)
      if (r != root)
        reqs.push_back(interlace::p2p::internal_isend(cs, data, static_cast<size_t>(count), t,
                                                      r, kTagBcast));
    interlace::Request::wait_all(reqs);
  });
}

void OMPIF_Allgather(void* data, int count, OMPIF_Datatype datatype, OMPIF_Comm communicator) {
  ompif::guarded("OMPIF_Allgather", [&] {
    check_comm(communicator);
    Datatype t = to_dt(datatype);
    check_count(count, data);
    const Communicator& w = ompif::world("OMPIF_Allgather");
    const auto& cs = w.group_state();
    const int n = w.size(), me = w.rank();
    const size_t block = static_cast<size_t>(count) * interlace::datatype_size(t);
    auto* base = static_cast<std::byte*>(data);
    // Receives first, so every block lands in place as soon as it arrives; the sends
    // are non-blocking so that rendezvous-sized blocks cannot deadlock the ring.
    std::vector<interlace::Request> reqs;
    for (int k = 1; k < n; ++k) {
      int from = (me - k + n) % n;
      reqs.push_back(interlace::p2p::internal_irecv(cs, base + block * from,
                                                    static_cast<size_t>(count), t, from,
                                                    kTagAllgather));
    }
    for (int k = 1; k < n; ++k)
      reqs.push_back(interlace::p2p::internal_isend(cs, base + block * me,
                                                    static_cast<size_t>(count), t,
                                                    (me + k) % n, kTagAllgather));
    interlace::Request::wait_all(reqs);
  });
}

}  // extern "C"
