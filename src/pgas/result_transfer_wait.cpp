// Automatic result transfer, the owner's waits and the consumer side: the per-Pgas
// hub of transfers, wait_results, release_results, and the process's current Pgas.
#include <cstdio>
#include <unordered_map>

#include "pgas/result_transfer_impl.hpp"

namespace interlace::pgas {

namespace {
// Keyed by the Pgas object (one per rank, alive while any of its transfers is). An
// entry is dropped with its hub, so a later Pgas at the same address starts afresh.
std::mutex g_hubs_mu;
std::unordered_map<const Pgas*, std::weak_ptr<ArtHub>>& hubs() {
  static auto* m = new std::unordered_map<const Pgas*, std::weak_ptr<ArtHub>>();  // outlives exit-time users
  return *m;
}

// Process-wide for C programs; per thread as well, so that ranks run as threads of
// one process (the test harness) each find their own.
std::atomic<Pgas*> g_current{nullptr};
thread_local Pgas* t_current = nullptr;

// Issues every owner transfer of the hub that this thread owns.
void drain(ArtHub& hub) {
  const auto me = std::this_thread::get_id();
  std::vector<ResultTransfer::Impl*> mine;
  {
    std::lock_guard<std::mutex> g(hub.mu);
    for (auto* t : hub.list)
      if (t->issue == ArtIssue::owner && t->owner == me) mine.push_back(t);
  }
  // put_signal may progress the engine, which never creates or destroys transfers.
  for (auto* t : mine) t->issue_ready();
}

bool any_work(ArtHub& hub) {
  const auto me = std::this_thread::get_id();
  std::lock_guard<std::mutex> g(hub.mu);
  for (auto* t : hub.list)
    if (t->issue == ArtIssue::owner && t->owner == me && t->has_work()) return true;
  return false;
}

std::string addr(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}
}  // namespace

std::shared_ptr<ArtHub> art_hub(Pgas& p, bool create) {
  std::lock_guard<std::mutex> g(g_hubs_mu);
  auto& m = hubs();
  auto it = m.find(&p);
  if (it != m.end()) {
    if (auto h = it->second.lock()) return h;
    m.erase(it);
  }
  if (!create) return nullptr;
  // The deleter drops the entry, unless a newer hub already took the key.
  std::shared_ptr<ArtHub> h(new ArtHub, [key = &p](ArtHub* dead) {
    {
      std::lock_guard<std::mutex> g2(g_hubs_mu);
      auto& mm = hubs();
      auto e = mm.find(key);
      if (e != mm.end() && e->second.expired()) mm.erase(e);
    }
    delete dead;
  });
  m[&p] = h;
  return h;
}

bool art_wait(Pgas& p, ArtHub* hub, const std::function<bool()>& pred, Deadline deadline) {
  for (;;) {
    if (hub) drain(*hub);
    if (pred()) return true;
    if (deadline.expired()) return false;
    // Announce the wait before checking for work: a producer publishing after the
    // check sees the count and wakes the fabric (seq_cst on both sides).
    if (hub) hub->waiting.fetch_add(1, std::memory_order_seq_cst);
    try {
      p.wait([&] { return pred() || (hub && any_work(*hub)) || deadline.expired(); });
    } catch (...) {
      if (hub) hub->waiting.fetch_sub(1, std::memory_order_seq_cst);
      throw;
    }
    if (hub) hub->waiting.fetch_sub(1, std::memory_order_seq_cst);
  }
}

uint64_t wait_results(Pgas& p, const uint64_t* signal, uint64_t count, double timeout_s) {
  if (!signal || !p.is_symmetric(signal, 8) || reinterpret_cast<uintptr_t>(signal) % 8)
    throw_error(Errc::invalid_argument, "wait_results: signal " + addr(signal) +
                                            " is not a symmetric, 8-byte aligned word");
  auto value = [signal] {
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(signal)).load(std::memory_order_seq_cst);
  };
  Deadline d;
  if (timeout_s >= 0) d.at_ns = now_ns() + static_cast<uint64_t>(timeout_s * 1e9);
  auto hub = art_hub(p, false);
  art_wait(p, hub.get(), [&] { return value() >= count; }, d);
  return value();
}

void release_results(Pgas& p, uint64_t* credit, uint64_t consumed, int producer_pe) {
  if (!credit || !p.is_symmetric(credit, 8))
    throw_error(Errc::invalid_argument, "release_results: credit word " + addr(credit) + " is not symmetric");
  p.atomic(p.default_domain(), AmoOp::set, AmoType::u64, credit, &consumed, nullptr, nullptr, producer_pe);
}

Pgas* current() noexcept {
  return t_current ? t_current : g_current.load(std::memory_order_acquire);
}
void set_current(Pgas* p) noexcept {
  t_current = p;
  g_current.store(p, std::memory_order_release);
}

}  // namespace interlace::pgas
