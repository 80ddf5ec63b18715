// Arrivals (UCX active-message callbacks), in-order delivery, lost peers and waits.
#include <poll.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "fabric/ucx/ucx_fabric.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::ucx {
namespace {

struct RecvCtx {
  UcxFabric* fabric;
  int from;
  uint64_t order;
};

void recv_done(void* request, ucs_status_t status, size_t, void* user_data) {
  ucp_request_free(request);  // only now: freeing it earlier drops this callback
  auto* c = static_cast<RecvCtx*>(user_data);
  c->fabric->on_recv_done(c->from, c->order, status);
  delete c;
}

const std::byte kNoPayload{};

}  // namespace

void UcxFabric::mark_dirty(int peer) {
  if (peers_[peer].dirty) return;
  peers_[peer].dirty = true;
  dirty_.push_back(peer);
}

// Runs inside ucp_worker_progress (from progress(), wait or a send): it only files
// the frame; deliver() hands it to the sink in order.
ucs_status_t UcxFabric::on_am(const void* header, size_t header_len, void* data, size_t len,
                              const ucp_am_recv_param_t* param) {
  if (header_len != sizeof(WireHead)) {
    IL_LOG(warn, "ucx fabric: dropped an active message with a " << header_len
                     << "-byte header (expected " << sizeof(WireHead) << ")");
    return UCS_OK;
  }
  WireHead head;
  std::memcpy(&head, header, sizeof head);
  if (head.from >= static_cast<uint32_t>(size_)) {
    IL_LOG(warn, "ucx fabric: dropped a frame from rank " << head.from << " of a job of " << size_);
    return UCS_OK;
  }
  const int from = static_cast<int>(head.from);
  Peer& p = peers_[from];
  if (p.reported) return UCS_OK;
  std::string bad = validate_header(head.h, static_cast<uint32_t>(rank_),
                                    static_cast<uint32_t>(size_), kMaxPayload, transit_);
  if (bad.empty() && head.h.len != len)
    bad = "len " + std::to_string(head.h.len) + " but " + std::to_string(len) + " bytes came";
  if (!bad.empty()) {
    mark_lost(from, "rank " + std::to_string(from) + " sent a malformed frame: " + bad);
    return UCS_OK;
  }
  // 32 bits on the wire, 64 here: fewer than 2^31 frames are ever in flight on a pair.
  const uint64_t order =
      p.next_deliver + static_cast<uint32_t>(head.order - static_cast<uint32_t>(p.next_deliver));
  auto [it, fresh] = p.inbox.try_emplace(order);
  if (!fresh) {
    IL_LOG(warn, "ucx fabric: dropped a duplicate frame " << order << " from rank " << from);
    return UCS_OK;
  }
  Inbound& in = it->second;
  in.head = head;
  if (len) in.data.reset(new std::byte[len]);
  if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
    // Started outside the callback (start_receives): UCX's tcp transport never
    // completes a rendezvous receive started from inside its arrival callback.
    to_start_.push_back({from, order, data});
    return UCS_INPROGRESS;
  } else if (len) {
    std::memcpy(in.data.get(), data, len);
  }
  in.ready = true;
  mark_dirty(from);
  return UCS_OK;
}

void UcxFabric::start_receives() {
  std::vector<PendingRndv> work;
  work.swap(to_start_);
  for (const PendingRndv& s : work) {
    Peer& p = peers_[s.from];
    auto it = p.inbox.find(s.order);
    if (it == p.inbox.end()) {
      ucp_am_data_release(worker_, s.desc);
      continue;
    }
    Inbound& in = it->second;
    auto* ctx = new RecvCtx{this, s.from, s.order};
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.cb.recv_am = recv_done;
    prm.user_data = ctx;
    void* r = ucp_am_recv_data_nbx(worker_, s.desc, in.data.get(), in.head.h.len, &prm);
    if (UCS_PTR_IS_PTR(r)) {
      ++rndv_in_flight_;  // recv_done frees the request
      continue;
    }
    delete ctx;
    if (UCS_PTR_IS_ERR(r)) {
      p.inbox.erase(it);
      mark_lost(s.from, std::string("rendezvous receive from rank ") + std::to_string(s.from) +
                            " failed: " + ucs_status_string(UCS_PTR_STATUS(r)));
      continue;
    }
    in.ready = true;
    mark_dirty(s.from);
  }
}

int UcxFabric::pump() {
  int n = ucp_worker_progress(worker_);
  if (!to_start_.empty()) {
    start_receives();
    ++n;
  }
  return n;
}

void UcxFabric::on_recv_done(int from, uint64_t order, ucs_status_t status) {
  Peer& p = peers_[from];
  --rndv_in_flight_;
  auto it = p.inbox.find(order);
  if (it == p.inbox.end()) return;
  if (status != UCS_OK) {
    p.inbox.erase(it);
    mark_lost(from, std::string("rendezvous receive from rank ") + std::to_string(from) +
                        " failed: " + ucs_status_string(status));
    return;
  }
  it->second.ready = true;
  mark_dirty(from);
}

int UcxFabric::deliver(FrameSink& sink) {
  int n = 0;
  std::vector<int> work;
  work.swap(dirty_);
  for (int r : work) {
    Peer& p = peers_[r];
    p.dirty = false;
    // The sink may send, and a send progresses the worker, which may file more frames
    // into this inbox: take each frame out before handing it over.
    while (!p.inbox.empty() && !p.reported) {
      auto it = p.inbox.begin();
      if (it->first != p.next_deliver || !it->second.ready) break;
      auto node = p.inbox.extract(it);
      ++p.next_deliver;
      const Inbound& in = node.mapped();
      sink.on_frame(in.head.h, in.data ? in.data.get() : &kNoPayload);
      ++n;
    }
  }
  if (dirty_.empty()) dirty_.swap(work), dirty_.clear();
  return n;
}

bool UcxFabric::has_deliverable() const {
  for (int r : dirty_) {
    const Peer& p = peers_[r];
    if (!p.inbox.empty() && p.inbox.begin()->first == p.next_deliver && p.inbox.begin()->second.ready)
      return true;
  }
  return lost_pending_ > 0;
}

int UcxFabric::report_lost(FrameSink& sink) {
  // What UCX already holds from the dead peer comes before its loss.
  for (int i = 0; i < 64 && pump() != 0; ++i) {}
  int n = deliver(sink);
  for (int r = 0; r < size_ && lost_pending_ > 0; ++r) {
    Peer& p = peers_[r];
    if (!p.lost || p.reported) continue;
    p.reported = true;
    --lost_pending_;
    // Receives still in flight finish (with an error) before the worker goes.
    for (auto it = p.inbox.begin(); it != p.inbox.end();)
      it = it->second.ready ? p.inbox.erase(it) : std::next(it);
    sink.on_peer_lost(r, p.why);
  }
  return n;
}

int UcxFabric::progress(FrameSink& sink) {
  for (int i = 0; i < 16 && pump() != 0; ++i) {}
  int n = dirty_.empty() ? 0 : deliver(sink);
  if (lost_pending_ > 0) n += report_lost(sink);
  return n;
}

void UcxFabric::check_peers(FrameSink& sink) {
  pump();  // also runs UCX's keepalive, which finds dead peers
  for (int r = 0; r < size_; ++r)
    if (!peers_[r].lost && !peer_alive(r))
      mark_lost(r, "rank " + std::to_string(r) + " (pid " + std::to_string(peers_[r].pid) +
                       ") has exited");
  deliver(sink);
  if (lost_pending_ > 0) report_lost(sink);
}

void UcxFabric::sleep(double timeout_s, bool wakeable, const std::function<bool()>* ready) {
  if (has_deliverable()) return;
  // Arming is valid only once progress finds nothing more: data already in a socket
  // does not make the fd fire again.
  if (pump() != 0) return;
  const ucs_status_t st = ucp_worker_arm(worker_);
  if (st == UCS_ERR_BUSY) return;  // events wait for ucp_worker_progress
  if (ready && (*ready)()) return;
  pollfd fds[2] = {{efd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int ms = timeout_s <= 0 ? 0 : static_cast<int>(std::ceil(std::min(timeout_s, 3600.0) * 1e3));
  // UCX's tcp transport does not signal the fd for every further chunk of a transfer
  // under way: while one is, nap at most 1 ms (an idle rank still sleeps fully).
  if (rndv_in_flight_ > 0 || eager_in_flight()) ms = std::min(ms, 1);
  if (st != UCS_OK) {
    // No wake-up for this transport mix: a short nap keeps the CPU free.
    ::poll(fds + 1, wakeable ? 1 : 0, std::min(ms, 1));
  } else {
    ::poll(wakeable ? fds : fds, wakeable ? 2 : 1, ms);
  }
  if (wakeable) {
    uint64_t v;
    while (::read(wake_fd_, &v, sizeof v) == sizeof v) {}
  }
}

void UcxFabric::wait(double timeout_s) { sleep(timeout_s, true, nullptr); }

bool UcxFabric::arm_sleep() {
  if (has_deliverable() || pump() != 0) return false;
  const ucs_status_t st = ucp_worker_arm(worker_);
  if (st == UCS_ERR_BUSY) return false;  // events wait for ucp_worker_progress
  armed_efd_ = st == UCS_OK;
  // As in sleep(): without a wake-up for this transport mix, or while a transfer is
  // under way, nap at most 1 ms.
  armed_cap_ms_ = !armed_efd_ || rndv_in_flight_ > 0 || eager_in_flight() ? 1 : -1;
  armed_ = true;
  armed_woken_ = false;
  return true;
}

void UcxFabric::sleep_armed(double timeout_s) {
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {efd_, POLLIN, 0}};
  int ms = timeout_s <= 0 ? 0 : static_cast<int>(std::ceil(std::min(timeout_s, 3600.0) * 1e3));
  if (armed_cap_ms_ >= 0) ms = std::min(ms, armed_cap_ms_);
  ::poll(fds, armed_efd_ ? 2 : 1, ms);
  uint64_t v;
  while (::read(wake_fd_, &v, sizeof v) == sizeof v) {}
}

void UcxFabric::wait_unless(double timeout_s, const std::function<bool()>& ready, bool) {
  sleep(timeout_s, true, &ready);
}

void UcxFabric::wake() {
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

}  // namespace interlace::fabric::ucx
