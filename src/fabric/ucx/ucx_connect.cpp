// Construction wires every pair up, and ranks UCX cannot watch are checked by pid.
// UCX connects an endpoint lazily through a handshake both sides must progress; a
// frame sent before it completes would wait for the sender's next progress, and the
// contract lets a sender go quiet after send() returns. So each rank sends every
// peer a hello and progresses until it has every peer's (bounded by
// INTERLACE_CONNECT_TIMEOUT; a missing peer is then connected on first use).
#include <signal.h>

#include <cerrno>
#include <cstring>

#include "fabric/ucx/ucx_fabric.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::ucx {
namespace {

ucs_status_t hello_cb(void* arg, const void* header, size_t header_len, void*, size_t,
                      const ucp_am_recv_param_t*) {
  uint32_t from = 0;
  if (header_len == sizeof from) {
    std::memcpy(&from, header, sizeof from);
    static_cast<UcxFabric*>(arg)->on_hello(static_cast<int>(from));
  }
  return UCS_OK;
}

}  // namespace

void UcxFabric::on_hello(int from) {
  if (from < 0 || from >= size_ || peers_[from].hello) return;
  peers_[from].hello = true;
  ++hellos_got_;
}

void UcxFabric::connect_all() {
  set_am_handler(kHelloId, hello_cb);
  if (size_ == 1) return;
  hello_from_ = static_cast<uint32_t>(rank_);
  for (int i = 1; i < size_; ++i) {
    const int peer = (rank_ + i) % size_;  // spread the first contacts
    ucp_ep_h ep = endpoint(peer);
    if (!ep) continue;
    // No callback, so the request may be freed at once: UCX completes it on its own.
    // The header is a member, not a local: UCX reads it until the send completes,
    // which may be after this function returned.
    ucp_request_param_t prm{};
    void* r = ucp_am_send_nbx(ep, kHelloId, &hello_from_, sizeof hello_from_, nullptr, 0, &prm);
    if (UCS_PTR_IS_PTR(r)) ucp_request_free(r);
  }
  const auto deadline = Deadline::after(config_.connect_timeout_s);
  int idle = 0;
  while (hellos_got_ < size_ - 1 && !deadline.expired()) {
    if (pump() != 0) idle = 0;
    else if (++idle > 64) sleep(0.01, false, nullptr);
  }
  if (hellos_got_ < size_ - 1)
    IL_LOG(warn, "ucx fabric: only " << hellos_got_ << " of " << size_ - 1
                     << " peers said hello within " << config_.connect_timeout_s << " s");
}

bool UcxFabric::peer_alive(int peer) {
  const Peer& p = peers_[peer];
  if (p.peer_mode || p.pid <= 0) return true;
  return !(::kill(p.pid, 0) != 0 && errno == ESRCH);
}

}  // namespace interlace::fabric::ucx
