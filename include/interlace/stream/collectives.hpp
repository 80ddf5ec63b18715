// Contract: SMI streaming collectives (docs/stream.md, "Streaming collectives").
//  - Every rank of the communicator opens the same kind of channel with the same
//    count, datatype, port and root, then calls the channel's operation once per
//    element, as in SMI: bcast(data) count times; reduce(snd, rcv) count times;
//    scatter/gather count times on non-roots and count * size times at the root.
//  - Port p of a collective travels on the reserved stream port -1 - p, so
//    collectives never meet point-to-point channels. Collectives on different
//    ports run concurrently; consecutive collectives on one port are distinct (the
//    n-th collective of a rank on a port meets the n-th of every other rank, so all
//    ranks must open their collectives on a port in the same order).
//  - Synchronisation (SMI paper, 3.3): bcast and scatter receivers announce
//    readiness before the root streams to them; gather contributors wait until the
//    root tells them to send, one rank after another in rank order; reduce
//    contributors run at most `tile` elements ahead of the root (credits per tile).
//  - degree is the asynchronicity degree of the underlying channels (0 = 1).
//  - Errors name the bad value: bad root, op/datatype pairs, calls past the count.
#pragma once
#include <cstddef>
#include <vector>

#include "interlace/core/reduce_op.hpp"
#include "interlace/stream/channel.hpp"

namespace interlace::stream {

inline constexpr size_t kCollDefaultDegree = 1024;
inline constexpr size_t kReduceDefaultTile = 1024;

class BcastChannel {
 public:
  BcastChannel() = default;
  BcastChannel(const Communicator& comm, size_t count, Datatype dt, int port, int root,
               size_t degree = kCollDefaultDegree);
  // Root: sends *data to every rank. Others: writes the root's element to *data.
  void bcast(void* data);
  size_t count() const noexcept { return count_; }
  size_t remaining() const noexcept { return count_ - done_; }
  int root() const noexcept { return root_; }
  bool is_root() const noexcept { return rank_ == root_; }

 private:
  size_t count_ = 0, done_ = 0;
  bool started_ = false;
  Datatype dt_ = Datatype::bytes;
  int port_ = 0, root_ = 0, rank_ = 0;
  std::vector<SendChannel> out_;    // root: to every other rank (index = rank)
  std::vector<RecvChannel> ready_;  // root: every rank's readiness
  RecvChannel in_;                  // non-root: from the root
};

class ReduceChannel {
 public:
  ReduceChannel() = default;
  // tile: elements a contributor may run ahead of the root (0 = 1).
  ReduceChannel(const Communicator& comm, size_t count, Datatype dt, ReduceOp op, int port,
                int root, size_t tile = kReduceDefaultTile);
  // Every rank contributes *snd; at the root *rcv receives the element reduced over
  // all ranks in rank order (rcv may be null elsewhere).
  void reduce(const void* snd, void* rcv);
  size_t count() const noexcept { return count_; }
  size_t remaining() const noexcept { return count_ - done_; }
  bool is_root() const noexcept { return rank_ == root_; }

 private:
  size_t count_ = 0, done_ = 0;
  Datatype dt_ = Datatype::bytes;
  ReduceOp op_ = ReduceOp::sum;
  int port_ = 0, root_ = 0, rank_ = 0;
  std::vector<RecvChannel> in_;  // root: from every other rank
  SendChannel out_;              // non-root: to the root
  std::vector<std::byte> tmp_;
};

class ScatterChannel {
 public:
  ScatterChannel() = default;
  // count: elements each rank receives; the root sends count * size.
  ScatterChannel(const Communicator& comm, size_t count, Datatype dt, int port, int root,
                 size_t degree = kCollDefaultDegree);
  // Root: call count * size times; *snd is the next element in rank order, *rcv is
  // written (and true returned) while the root's own part passes. Others: call count
  // times; snd is ignored, *rcv is written, returns true.
  bool scatter(const void* snd, void* rcv);
  size_t count() const noexcept { return count_; }
  // Calls still to make on this rank.
  size_t remaining() const noexcept { return calls_ - done_; }
  bool is_root() const noexcept { return rank_ == root_; }

 private:
  size_t count_ = 0, calls_ = 0, done_ = 0;
  Datatype dt_ = Datatype::bytes;
  int port_ = 0, root_ = 0, rank_ = 0;
  std::vector<SendChannel> out_;    // root: to every other rank
  std::vector<RecvChannel> ready_;  // root: every rank's readiness
  RecvChannel in_;                  // non-root: from the root
};

class GatherChannel {
 public:
  GatherChannel() = default;
  // count: elements each rank contributes; the root receives count * size.
  GatherChannel(const Communicator& comm, size_t count, Datatype dt, int port, int root,
                size_t degree = kCollDefaultDegree);
  // Root: call count * size times; *rcv gets the next element in rank order and *snd
  // is read while the root's own part passes. Others: call count times sending *snd.
  // Returns true when *rcv was written.
  bool gather(const void* snd, void* rcv);
  size_t count() const noexcept { return count_; }
  size_t remaining() const noexcept { return calls_ - done_; }
  bool is_root() const noexcept { return rank_ == root_; }

 private:
  size_t count_ = 0, calls_ = 0, done_ = 0;
  Datatype dt_ = Datatype::bytes;
  int port_ = 0, root_ = 0, rank_ = 0;
  std::vector<RecvChannel> in_;   // root: from every other rank
  std::vector<SendChannel> go_;   // root: "send now" to every other rank
  SendChannel out_;               // non-root: to the root
  RecvChannel go_in_;             // non-root: the root's "send now"
};

}  // namespace interlace::stream
