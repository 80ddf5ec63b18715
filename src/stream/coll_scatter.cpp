// ScatterChannel: like bcast, every non-root opens its data channel and then tells
// the root it is ready; the root serves the ranks one after another in rank order,
// waiting for a rank's readiness only when its turn comes.
#include "interlace/stream/collectives.hpp"
#include "stream/coll_common.hpp"

namespace interlace::stream {

using namespace detail;

ScatterChannel::ScatterChannel(const Communicator& comm, size_t count, Datatype dt, int port,
                               int root, size_t degree)
    : count_(count), dt_(dt), port_(port), root_(root) {
  rank_ = check_coll(comm, count, dt, port, root, "ScatterChannel");
  const int n = comm.size();
  calls_ = rank_ == root_ ? count * static_cast<size_t>(n) : count;
  if (count == 0) return;
  if (rank_ == root_) {
    out_.resize(n);
    ready_.resize(n);
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

bool ScatterChannel::scatter(const void* snd, void* rcv) {
  if (done_ == calls_) past_count("ScatterChannel", port_, calls_);
  if (rank_ != root_) {
    if (!rcv) throw_error(Errc::invalid_argument, "ScatterChannel::scatter: the receive element is null");
    in_.pop(rcv);
    ++done_;
    return true;
  }
  if (!snd) throw_error(Errc::invalid_argument, "ScatterChannel::scatter: the send element is null at the root");
  const size_t r = done_ / count_;
  if (static_cast<int>(r) == root_) {
    if (!rcv) throw_error(Errc::invalid_argument, "ScatterChannel::scatter: the receive element is null at the root");
    std::memcpy(rcv, snd, datatype_size(dt_));
    ++done_;
    return true;
  }
  if (done_ % count_ == 0) wait_token(ready_[r]);
  out_[r].push(snd);
  ++done_;
  return false;
}

}  // namespace interlace::stream
