// send(): eager frames through a copy the fabric owns, large frames by rendezvous from
// the caller's buffer (ucx_fabric.hpp says why).
#include <cstring>
#include <memory>
#include <new>
#include <thread>

#include "fabric/ucx/ucx_fabric.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::fabric::ucx {
namespace {

// An eager frame in flight: the UCX header and the payload copy, in one allocation.
struct EagerBlock {
  UcxFabric* fabric;
  int peer;
  size_t len;
  WireHead head;
  std::byte* payload() { return reinterpret_cast<std::byte*>(this + 1); }
};

// UCX calls this only for a request nobody freed (ucp_request_free drops the callback,
// ucp.h): the request is freed here, once its callback has run.
void eager_done(void* request, ucs_status_t status, void* user_data) {
  ucp_request_free(request);
  auto* b = static_cast<EagerBlock*>(user_data);
  b->fabric->on_eager_done(b->peer, b->len);
  if (status != UCS_OK && status != UCS_ERR_CANCELED) b->fabric->on_ep_error(b->peer, status);
  b->~EagerBlock();
  ::operator delete(b);
}

struct RndvState {
  bool done = false;
  bool abandoned = false;  // send() gave up on a lost peer
  ucs_status_t status = UCS_OK;
};

void rndv_done(void* request, ucs_status_t status, void* user_data) {
  auto* s = static_cast<RndvState*>(user_data);
  if (s->abandoned) {
    ucp_request_free(request);  // send() left it to us
    delete s;
    return;
  }
  s->done = true;
  s->status = status;
}

// Small frames first try to leave at once from the caller's buffer: UCX then copied
// them (short/bcopy protocols) and no block is needed.
constexpr size_t kImmediateMax = 8 * 1024;

}  // namespace

Errc UcxFabric::send(int peer, const FrameHeader& h, const void* payload, size_t len) {
  if (peer < 0 || peer >= size_) return Errc::invalid_rank;
  if (len > kMaxPayload) return Errc::invalid_argument;
  ucp_ep_h ep = endpoint(peer);
  if (!ep) return Errc::lost_peer;
  Peer& p = peers_[peer];
  WireHead head{h, static_cast<uint32_t>(rank_), p.next_send};
  ucp_request_param_t prm{};

  if (len > opts_.rndv_thresh) {
    // Zero-copy: UCX reads from `payload` until the request completes, so send()
    // progresses (and sleeps on the wake-up fd) until then.
    auto st = std::make_unique<RndvState>();
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                       UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_AM_SEND_FLAG_RNDV;
    prm.cb.send = rndv_done;
    prm.user_data = st.get();
    void* r = ucp_am_send_nbx(ep, kAmId, &head, sizeof head, payload, len, &prm);
    if (UCS_PTR_IS_ERR(r)) {
      on_ep_error(peer, UCS_PTR_STATUS(r));
      return Errc::lost_peer;
    }
    if (r) {
      int idle = 0;
      auto next_check = Deadline::after(config_.peer_check_s);
      auto patience = Deadline::after(0.2);
      while (!st->done) {
        if (pump() != 0) {
          idle = 0;
          patience = Deadline::after(0.2);
        } else if (++idle > 64) {
          // The fd wakes us on arrivals but not when a socket can take more of our
          // data: sleep on it only once the transfer looks stalled (peer busy).
          if (patience.expired()) sleep(0.01, false, nullptr);
          else std::this_thread::yield();
          if (next_check.expired()) {
            // A peer UCX does not watch may have died holding our buffer's rendezvous.
            if (!peer_alive(peer)) mark_lost(peer, "rank " + std::to_string(peer) + " has exited");
            next_check = Deadline::after(config_.peer_check_s);
          }
        }
        if (p.lost) break;
      }
      if (!st->done) {
        // Not freed here: that would drop the callback, which frees both once UCX
        // cancels the request.
        st->abandoned = true;
        st.release();
        return Errc::lost_peer;
      }
      ucp_request_free(r);
      if (st->status != UCS_OK) {
        on_ep_error(peer, st->status);
        return Errc::lost_peer;
      }
      wake_sleeper();  // its pumps may have filed arrivals that the sleeper's fd no longer shows
    }
    ++p.next_send;
    return Errc::ok;
  }

  // Not while earlier copies wait in UCX's queue: a frame must not overtake them there.
  if (len <= kImmediateMax && p.eager_pending == 0) {
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    prm.flags = UCP_AM_SEND_FLAG_EAGER;
    void* r = ucp_am_send_nbx(ep, kAmId, &head, sizeof head, payload, len, &prm);
    if (r == nullptr) {
      ++p.next_send;
      return Errc::ok;
    }
    if (UCS_PTR_IS_PTR(r)) {  // not expected with FORCE_IMM_CMPL; the buffer is in use
      while (ucp_request_check_status(r) == UCS_INPROGRESS) pump();
      wake_sleeper();
      const ucs_status_t s = ucp_request_check_status(r);
      ucp_request_free(r);
      if (s != UCS_OK) {
        on_ep_error(peer, s);
        return Errc::lost_peer;
      }
      ++p.next_send;
      return Errc::ok;
    }
    if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) {
      on_ep_error(peer, UCS_PTR_STATUS(r));
      return Errc::lost_peer;
    }
    // No room now, or a size UCX never completes at once (a shared-memory fifo takes
    // only its segment size in one go): nothing was taken, so send a copy below.
  }
  if (p.eager_pending > 0 && p.eager_bytes + len > kEagerQueueBound) {
    pump();
    wake_sleeper();
    if (p.lost) return Errc::lost_peer;
    if (p.eager_pending > 0 && p.eager_bytes + len > kEagerQueueBound) return Errc::would_block;
  }
  void* mem = ::operator new(sizeof(EagerBlock) + len);
  auto* b = new (mem) EagerBlock{this, peer, len, head};
  if (len) std::memcpy(b->payload(), payload, len);
  prm = ucp_request_param_t{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                     UCP_OP_ATTR_FIELD_FLAGS;
  prm.flags = UCP_AM_SEND_FLAG_EAGER;
  prm.cb.send = eager_done;
  prm.user_data = b;
  void* r = ucp_am_send_nbx(ep, kAmId, &b->head, sizeof b->head, b->payload(), len, &prm);
  if (UCS_PTR_IS_PTR(r)) {
    p.eager_bytes += len;
    ++p.eager_pending;
    wake_sleeper();  // the copy leaves as the worker progresses
    // Not freed here: ucp_request_free would drop eager_done, and the copy and the
    // count with it (every later frame then stalled behind the bound); eager_done frees it.
  } else {
    b->~EagerBlock();
    ::operator delete(mem);
    if (UCS_PTR_IS_ERR(r)) {
      on_ep_error(peer, UCS_PTR_STATUS(r));
      return Errc::lost_peer;
    }
  }
  ++p.next_send;
  return Errc::ok;
}

}  // namespace interlace::fabric::ucx
