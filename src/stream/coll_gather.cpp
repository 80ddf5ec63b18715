// GatherChannel: the root takes the ranks' contributions in rank order; when rank r's
// turn comes it tells r to send (a one-byte "send now"), so no rank's data reaches
// the root before the ranks ahead of it are done and at most one channel's worth of
// data (its degree) waits at the root.
#include "interlace/stream/collectives.hpp"
#include "stream/coll_common.hpp"

namespace interlace::stream {

using namespace detail;

GatherChannel::GatherChannel(const Communicator& comm, size_t count, Datatype dt, int port, int root,
                             size_t degree)
    : count_(count), dt_(dt), port_(port), root_(root) {
  rank_ = check_coll(comm, count, dt, port, root, "GatherChannel");
  const int n = comm.size();
  calls_ = rank_ == root_ ? count * static_cast<size_t>(n) : count;
  if (count == 0) return;
  if (rank_ == root_) {
    in_.resize(n);
    go_.resize(n);
    for (int r = 0; r < n; ++r) {
      if (r == root_) continue;
      go_[r] = open_token_send(comm, r, port);
      in_[r] = open_coll_recv(comm, r, port, count, dt, degree);
    }
  } else {
    go_in_ = open_token_recv(comm, root, port);
    out_ = open_coll_send(comm, root, port, count, dt, degree);
  }
}

bool GatherChannel::gather(const void* snd, void* rcv) {
  if (done_ == calls_) past_count("GatherChannel", port_, calls_);
  if (rank_ != root_) {
    if (!snd) throw_error(Errc::invalid_argument, "GatherChannel::gather: the send element is null");
    if (done_ == 0) wait_token(go_in_);
    out_.push(snd);
    ++done_;
    return false;
  }
  if (!rcv) throw_error(Errc::invalid_argument, "GatherChannel::gather: the receive element is null at the root");
  const size_t r = done_ / count_;
  if (static_cast<int>(r) == root_) {
    if (!snd) throw_error(Errc::invalid_argument, "GatherChannel::gather: the send element is null at the root");
    std::memcpy(rcv, snd, datatype_size(dt_));
  } else {
    if (done_ % count_ == 0) send_token(go_[r]);
    in_[r].pop(rcv);
  }
  ++done_;
  return true;
}

}  // namespace interlace::stream
