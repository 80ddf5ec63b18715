// BcastChannel: every non-root opens its data channel from the root and then tells
// the root it is ready; the root waits for all readiness notes before its first
// element, then pushes each element into one channel per rank.
#include "interlace/stream/collectives.hpp"
#include "stream/coll_common.hpp"

namespace interlace::stream {

using namespace detail;

BcastChannel::BcastChannel(const Communicator& comm, size_t count, Datatype dt, int port, int root,
                           size_t degree)
    : count_(count), dt_(dt), port_(port), root_(root) {
  rank_ = check_coll(comm, count, dt, port, root, "BcastChannel");
  // An empty broadcast moves nothing, so it also synchronises nothing: both sides
  // skip the readiness note and the port's channel numbering stays in step.
  if (count == 0) return;
  if (rank_ == root_) {
    const int n = comm.size();
    out_.resize(n);
    ready_.resize(n);
    // Opened now, not lazily, so the port's channel numbers follow the order in
    // which this rank opened its collectives.
    for (int r = 0; r < n; ++r) {
      if (r == root_) continue;
      ready_[r] = open_token_recv(comm, r, port);
      out_[r] = open_coll_send(comm, r, port, count, dt, degree);
    }
  } else {
    in_ = open_coll_recv(comm, root, port, count, dt, degree);
    SendChannel note = open_token_send(comm, root, port);
    send_token(note);
  }
}

void BcastChannel::bcast(void* data) {
  if (done_ == count_) past_count("BcastChannel", port_, count_);
  if (rank_ != root_) {
    in_.pop(data);
    ++done_;
    return;
  }
  if (!started_) {
    for (size_t r = 0; r < ready_.size(); ++r)
      if (ready_[r].is_open()) wait_token(ready_[r]);
    ready_.clear();
    started_ = true;
  }
  for (SendChannel& ch : out_)
    if (ch.is_open()) ch.push(data);
  ++done_;
}

}  // namespace interlace::stream
