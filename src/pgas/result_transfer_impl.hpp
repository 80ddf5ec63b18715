// Automatic result transfer: the shared state of one transfer and the per-Pgas hub
// through which the owner thread drives every owner-issued transfer of its Pgas.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"
#include "interlace/pgas/result_transfer.hpp"

namespace interlace::pgas {

struct ArtHub {
  std::mutex mu;                              // guards list (transfers come and go)
  std::vector<ResultTransfer::Impl*> list;
  // Owner threads inside art_wait: a producer that publishes wakes the fabric then.
  std::atomic<int> waiting{0};
};

struct ResultTransfer::Impl {
  Pgas* p = nullptr;
  std::byte* dest = nullptr;
  size_t es = 0, cap = 0, batch = 0, stage = 0;
  int pe = 0;
  uint64_t* signal = nullptr;
  SignalOp op = SignalOp::set;
  uint64_t* credit = nullptr;
  ArtIssue issue = ArtIssue::owner;
  Domain dom;
  std::shared_ptr<ArtHub> hub;
  std::thread::id owner;
  std::unique_ptr<std::byte[]> ring;

  // Producer-private (its own cache line: the owner never touches it).
  alignas(64) uint64_t tail = 0;       // elements copied into the ring
  uint64_t published = 0;              // what `ready` was last set to
  uint64_t sent_cache = 0;             // a recent value of `sent`
  // Producer -> issuer.
  alignas(64) std::atomic<uint64_t> ready{0};
  std::atomic<bool> closed{false};
  // Issuer -> producer.
  alignas(64) std::atomic<uint64_t> sent{0};
  std::atomic<uint32_t> wake_seq{0};
  std::atomic<bool> prod_sleeping{false};
  // A failure on either side; the message is written before `failed` is set.
  std::atomic<bool> failed{false};
  Errc err = Errc::ok;
  std::string err_msg;

  uint64_t consumed() const noexcept {
    return credit ? std::atomic_ref<uint64_t>(*credit).load(std::memory_order_acquire) : 0;
  }
  // Elements the destination can take now (unbounded without a credit word: emit
  // already refused to pass capacity).
  uint64_t dest_room(uint64_t s) const noexcept {
    if (!credit) return UINT64_MAX;
    const uint64_t c = consumed();
    return s - c >= cap ? 0 : cap - (s - c);
  }
  // Something to put, and room for it. Cheap: called from wait conditions.
  bool has_work() const noexcept {
    const uint64_t s = sent.load(std::memory_order_relaxed);
    return ready.load(std::memory_order_seq_cst) > s && dest_room(s) > 0;
  }
  bool issue_ready();                       // the issuing thread: puts what it may
  void fail(Errc code, const std::string& msg) noexcept;
  [[noreturn]] void rethrow() const;
  void wake_producer() noexcept;
};

// The hub of `p` (created when `create`, else nullptr if there is none).
std::shared_ptr<ArtHub> art_hub(Pgas& p, bool create);
// Owner-side wait: issues the owner transfers of the hub that belong to this thread
// and waits (progressing, blocking in the fabric) until pred() holds or the deadline
// passes. Returns pred()'s last value.
bool art_wait(Pgas& p, ArtHub* hub, const std::function<bool()>& pred, Deadline deadline = {});

}  // namespace interlace::pgas
