// ReduceChannel: every non-root streams its contributions to the root over a channel
// whose degree is the tile, so it runs at most one tile ahead of the root: the
// root's returned credits are the "next tile" grants of the SMI protocol. The root
// combines element i of all ranks in rank order, so float results are reproducible.
#include <string>

#include "interlace/stream/collectives.hpp"
#include "stream/coll_common.hpp"

namespace interlace::stream {

using namespace detail;

ReduceChannel::ReduceChannel(const Communicator& comm, size_t count, Datatype dt, ReduceOp op,
                             int port, int root, size_t tile)
    : count_(count), dt_(dt), op_(op), port_(port), root_(root) {
  rank_ = check_coll(comm, count, dt, port, root, "ReduceChannel");
  if (static_cast<unsigned>(op) >= static_cast<unsigned>(kReduceOpCount))
    throw_error(Errc::invalid_op, "ReduceChannel: operator code " + std::to_string(int(op)) +
                                      " is not a valid ReduceOp");
  if (!reduce_op_supports(op, dt))
    throw_error(Errc::invalid_op, "ReduceChannel: operator " + std::string(reduce_op_name(op)) +
                                      " does not apply to " + std::string(datatype_name(dt)));
  if (count == 0) return;
  if (rank_ == root_) {
    const int n = comm.size();
    in_.resize(n);
    for (int r = 0; r < n; ++r)
      if (r != root_) in_[r] = open_coll_recv(comm, r, port, count, dt, tile);
    tmp_.resize(2 * datatype_size(dt));
  } else {
    out_ = open_coll_send(comm, root, port, count, dt, tile);
  }
}

void ReduceChannel::reduce(const void* snd, void* rcv) {
  if (done_ == count_) past_count("ReduceChannel", port_, count_);
  if (!snd) throw_error(Errc::invalid_argument, "ReduceChannel::reduce: the send element is null");
  if (rank_ != root_) {
    out_.push(snd);
    ++done_;
    return;
  }
  if (!rcv)
    throw_error(Errc::invalid_argument, "ReduceChannel::reduce: the receive element is null at the root");
  const size_t es = datatype_size(dt_);
  std::byte* acc = tmp_.data();
  std::byte* in = acc + es;
  for (size_t r = 0; r < in_.size(); ++r) {
    const void* x = in;
    if (static_cast<int>(r) == root_) x = snd;
    else in_[r].pop(in);
    if (r == 0) std::memcpy(acc, x, es);
    else reduce_or_throw(op_, dt_, acc, x, 1);
  }
  std::memcpy(rcv, acc, es);
  ++done_;
}

}  // namespace interlace::stream
