#include "fabric/ucx/ucx_fabric.hpp"

#include <sys/eventfd.h>
#include <ucs/config/global_opts.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::ucx {
namespace {

std::string address_key(const std::string& job, int rank) {
  return "ucx/" + job + "/" + std::to_string(rank);
}

// Store values travel as text through every store (file, tcp, PMIx later): hex.
std::string to_hex(const void* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    const auto b = static_cast<const unsigned char*>(p)[i];
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

bool from_hex(const std::string& s, std::vector<unsigned char>& out) {
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (s.size() % 2) return false;
  out.resize(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

void check(ucs_status_t st, const char* what) {
  if (st != UCS_OK)
    throw_error(Errc::system, std::string("ucx fabric: ") + what + ": " + ucs_status_string(st));
}

void ep_error_cb(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* a = static_cast<EpErrorArg*>(arg);
  a->fabric->on_ep_error(a->peer, status);
}

ucs_status_t am_cb(void* arg, const void* header, size_t header_len, void* data, size_t len,
                   const ucp_am_recv_param_t* param) {
  return static_cast<UcxFabric*>(arg)->on_am(header, header_len, data, len, param);
}

}  // namespace

Options read_options() {
  Options o;
  if (const char* v = std::getenv("INTERLACE_UCX_RNDV_THRESH"); v && *v) {
    char* end = nullptr;
    const long long x = std::strtoll(v, &end, 10);
    if (!end || *end != '\0' || x < 0 || static_cast<unsigned long long>(x) > kMaxPayload)
      throw_error(Errc::invalid_argument, std::string("INTERLACE_UCX_RNDV_THRESH='") + v +
                                              "': expected bytes in 0.." + std::to_string(kMaxPayload));
    o.rndv_thresh = static_cast<size_t>(x);
  }
  return o;
}

UcxFabric::UcxFabric(const FabricInit& init)
    : rank_(init.rank), size_(init.size), job_id_(init.job_id), store_(init.store),
      config_(init.config), opts_(read_options()), transit_(!init.config.routes_dir.empty()),
      peers_(static_cast<size_t>(init.size)) {
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    throw_error(Errc::invalid_argument, "ucx fabric: rank " + std::to_string(rank_) +
                                            " is not in a job of size " + std::to_string(size_));
  if (!store_ && size_ > 1)
    throw_error(Errc::invalid_argument, "ucx fabric: a job of several ranks needs a store");
  try {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    host_ = host;
    open_worker();
    publish_address();
    connect_all();
  } catch (...) {
    if (worker_) ucp_worker_destroy(worker_);
    if (context_) ucp_cleanup(context_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    throw;
  }
}

void UcxFabric::open_worker() {
  ucp_config_t* cfg = nullptr;
  check(ucp_config_read(nullptr, nullptr, &cfg), "reading the UCX configuration");
  // A dead peer must be found within seconds, not UCX's default of minutes: the
  // keepalive runs on endpoints in peer error-handling mode.
  if (!std::getenv("UCX_KEEPALIVE_INTERVAL"))
    ucp_config_modify(cfg, "KEEPALIVE_INTERVAL", opts_.keepalive.c_str());
  ucp_params_t p{};
  p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  p.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  p.mt_workers_shared = 0;
  const ucs_status_t st = ucp_init(&p, cfg, &context_);
  ucp_config_release(cfg);
  if (st != UCS_OK) {
    // No transport usable here (UCX_TLS names none that exists): the fabric is not
    // available, as a backend that is not built.
    throw_error(st == UCS_ERR_NO_DEVICE || st == UCS_ERR_NO_ELEM ? Errc::unsupported : Errc::system,
                std::string("ucx fabric: ucp_init: ") + ucs_status_string(st));
  }
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;  // the engine serialises; wake() uses our eventfd
  check(ucp_worker_create(context_, &wp, &worker_), "ucp_worker_create");
  check(ucp_worker_get_efd(worker_, &efd_), "ucp_worker_get_efd");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw_error(Errc::system, "ucx fabric: eventfd failed");
  set_am_handler(kAmId, am_cb);
}

void UcxFabric::set_am_handler(unsigned id, ucp_am_recv_callback_t cb) {
  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                  UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = id;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = cb;
  hp.arg = this;
  check(ucp_worker_set_am_recv_handler(worker_, &hp), "ucp_worker_set_am_recv_handler");
}

void UcxFabric::publish_address() {
  ucp_address_t* addr = nullptr;
  size_t len = 0;
  check(ucp_worker_get_address(worker_, &addr, &len), "ucp_worker_get_address");
  const std::string hex = to_hex(addr, len);
  ucp_worker_release_address(worker_, addr);
  if (store_)
    store_->set(address_key(job_id_, rank_), hex + "|" + host_ + "|" + std::to_string(::getpid()));
}

ucp_ep_h UcxFabric::endpoint(int peer) {
  Peer& p = peers_[peer];
  if (p.lost) return nullptr;
  if (p.ep) return p.ep;
  std::string hex;
  try {
    hex = store_ ? store_->get(address_key(job_id_, peer), config_.connect_timeout_s)
                 : std::string();
  } catch (const Error& e) {
    mark_lost(peer, "rank " + std::to_string(peer) + " did not publish its ucx address (key '" +
                        address_key(job_id_, peer) + "'): " + e.what());
    return nullptr;
  }
  // "<hex address>|<host>|<pid>"
  std::vector<unsigned char> bytes;
  const size_t bar1 = hex.find('|'), bar2 = hex.rfind('|');
  if (bar1 == std::string::npos || bar2 == bar1 || !from_hex(hex.substr(0, bar1), bytes)) {
    mark_lost(peer, "rank " + std::to_string(peer) + " published a malformed ucx address");
    return nullptr;
  }
  const bool same_host = hex.substr(bar1 + 1, bar2 - bar1 - 1) == host_;
  const int pid = std::atoi(hex.c_str() + bar2 + 1);
  ep_args_.push_back(std::make_unique<EpErrorArg>(EpErrorArg{this, peer}));
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                  UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.address = reinterpret_cast<const ucp_address_t*>(bytes.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = ep_error_cb;
  ep.err_handler.arg = ep_args_.back().get();
  ucs_status_t st = UCS_ERR_UNREACHABLE;
  if (peer_mode_ok_) {
    // A refusal is expected where only shared memory is enabled: keep UCX quiet for it.
    const auto level = ucs_global_opts.log_component.log_level;
    ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_FATAL;
    st = ucp_ep_create(worker_, &ep, &p.ep);
    ucs_global_opts.log_component.log_level = level;
    if (st != UCS_OK) peer_mode_ok_ = false;
  }
  if (st != UCS_OK) {
    // UCX 1.13's shared-memory transports cannot watch a peer: without peer mode,
    // a rank on this host is checked by its pid instead (peer_alive).
    ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
    st = ucp_ep_create(worker_, &ep, &p.ep);
    p.peer_mode = false;
    p.pid = same_host && pid != ::getpid() ? pid : 0;
  }
  if (st != UCS_OK) {
    p.ep = nullptr;
    mark_lost(peer, std::string("ucp_ep_create to rank ") + std::to_string(peer) + ": " +
                        ucs_status_string(st));
    return nullptr;
  }
  return p.ep;
}

void UcxFabric::watch_peer(int peer) {
  if (peer >= 0 && peer < size_ && peer != rank_) endpoint(peer);
}

void UcxFabric::on_ep_error(int peer, ucs_status_t status) {
  mark_lost(peer, std::string("ucx endpoint to rank ") + std::to_string(peer) + " failed: " +
                      ucs_status_string(status));
}

void UcxFabric::mark_lost(int peer, const std::string& why) {
  Peer& p = peers_[peer];
  if (p.lost) return;
  p.lost = true;
  p.why = why;
  ++lost_pending_;
  dirty_.push_back(peer);
  IL_LOG(debug, why);
}

void UcxFabric::close_endpoints() {
  // Flush what send() already accepted (its eager copies) before the worker goes. A
  // flushing close would also wait for the peer to take part in a closing handshake,
  // which a rank that finished (or threads-as-ranks destroyed one after another) never
  // does: flush, then close without that handshake.
  const auto progress_until = [&](void* req, const Deadline& deadline) {
    if (!UCS_PTR_IS_PTR(req)) return;
    while (ucp_request_check_status(req) == UCS_INPROGRESS && !deadline.expired())
      ucp_worker_progress(worker_);
    ucp_request_free(req);
  };
  const auto deadline = Deadline::after(10.0);
  ucp_request_param_t prm{};
  for (int r = 0; r < size_; ++r)
    if (peers_[r].ep && !peers_[r].lost && peers_[r].eager_pending > 0)
      progress_until(ucp_ep_flush_nbx(peers_[r].ep, &prm), deadline);
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
  for (int r = 0; r < size_; ++r) {
    if (!peers_[r].ep) continue;
    progress_until(ucp_ep_close_nbx(peers_[r].ep, &prm), Deadline::after(1.0));
    peers_[r].ep = nullptr;
  }
}

UcxFabric::~UcxFabric() {
  close_endpoints();
  // Rendezvous receives still open own their buffers in peers_: UCX cancels them with
  // the worker, before peers_ goes.
  ucp_worker_destroy(worker_);
  ucp_cleanup(context_);
  ::close(wake_fd_);
}

}  // namespace interlace::fabric::ucx
