// Contract: MPI-style point-to-point messaging on communicators.
//  - Ranks are communicator ranks; tags are 0..kTagUpperBound (ANY_TAG only on receives);
//    PROC_NULL as peer makes the call a no-op (receives complete with source PROC_NULL).
//  - Counts are in elements of the given Datatype. A message longer than the receive
//    buffer raises TruncationError (Errc::truncated; what fits is written).
//  - Non-overtaking: two messages from one sender on one communicator that both match a
//    receive are matched in the order they were sent.
//  - Messages up to config().eager_limit bytes go eagerly (send completes at once);
//    larger ones and every ssend use rendezvous (complete once the receiver matched;
//    on shm the receiver reads the sender's buffer directly with one copy).
//  - Communicators: world, self, dup, split(color, key), free; traffic is isolated per
//    communicator. dup/split/free are collective over the parent.
//  - Every error is an interlace::Error naming the bad value; a dead peer gives
//    LostPeerError within about INTERLACE_PEER_CHECK seconds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <span>
#include <vector>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/request.hpp"

namespace interlace {

namespace engine { class Context; struct ContextOptions; }
namespace groups { struct CommState; struct RuntimeState; }

inline constexpr int ANY_SOURCE = -1;
inline constexpr int ANY_TAG = -1;
inline constexpr int PROC_NULL = -2;
inline constexpr int UNDEFINED = -32766;  // split color: not part of any new communicator
inline constexpr int kTagUpperBound = 0x7fffffff;

class Communicator {
 public:
  Communicator() = default;  // the null communicator
  bool is_null() const noexcept { return !state_; }
  int rank() const;
  int size() const;
  uint64_t id() const;
  int world_rank_of(int rank) const;  // translate a rank of this communicator

  void send(const void* buf, size_t count, Datatype dt, int dest, int tag) const;
  void ssend(const void* buf, size_t count, Datatype dt, int dest, int tag) const;
  Status recv(void* buf, size_t count, Datatype dt, int source, int tag) const;
  Request isend(const void* buf, size_t count, Datatype dt, int dest, int tag) const;
  Request issend(const void* buf, size_t count, Datatype dt, int dest, int tag) const;
  Request irecv(void* buf, size_t count, Datatype dt, int source, int tag) const;
  Status sendrecv(const void* sendbuf, size_t sendcount, Datatype sendtype, int dest,
                  int sendtag, void* recvbuf, size_t recvcount, Datatype recvtype,
                  int source, int recvtag) const;
  Status probe(int source, int tag) const;
  bool iprobe(int source, int tag, Status* status = nullptr) const;

  // Typed conveniences.
  template <class T> void send(std::span<const T> data, int dest, int tag) const {
    send(data.data(), data.size(), datatype_of<T>::value, dest, tag);
  }
  template <class T> Status recv(std::span<T> data, int source, int tag) const {
    return recv(data.data(), data.size(), datatype_of<T>::value, source, tag);
  }

  Communicator dup() const;
  Communicator split(int color, int key) const;  // UNDEFINED color -> null communicator
  void free();                                   // collective; this handle becomes null

  engine::Context& context() const;

  // For models above the groups layer (collectives, MPI): the shared communicator
  // state (interlace/groups/comm_state.hpp); null for the null communicator.
  const std::shared_ptr<groups::CommState>& group_state() const noexcept { return state_; }
  static Communicator from_group_state(std::shared_ptr<groups::CommState> s) {
    return Communicator(std::move(s));
  }

 private:
  friend class Runtime;
  explicit Communicator(std::shared_ptr<groups::CommState> s) : state_(std::move(s)) {}
  groups::CommState& state() const;
  std::shared_ptr<groups::CommState> state_;
};

// One per rank: owns the engine Context and the p2p matching state.
class Runtime {
 public:
  // Discovers rank/size from the environment (launcher, mpirun, Slurm or singleton).
  static Runtime init();
  explicit Runtime(const engine::ContextOptions& opts);
  Runtime() = default;
  bool valid() const noexcept { return static_cast<bool>(state_); }

  Communicator world() const;
  Communicator self() const;
  engine::Context& context() const;
  // Completes outgoing traffic and closes fabrics; further calls raise Errc::finalized.
  void finalize();
  bool finalized() const;

 private:
  std::shared_ptr<groups::RuntimeState> state_;
};

// Threads-as-ranks harness: runs fn(runtime) on `size` threads, one rank each, over a
// fabric ("shm" or "tcp") with an in-process store. Rethrows the first exception.
void run_ranks_as_threads(int size, const std::function<void(Runtime&)>& fn,
                          const std::string& fabric = "shm");

}  // namespace interlace
