// Automatic result transfer, the producer and issuer sides (docs/pgas-art.md).
// The producer copies results into a local ring and publishes them a batch at a
// time; the issuer (the owner thread, or the producer with ArtIssue::producer) puts
// each published piece with put_signal.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "interlace/engine/context.hpp"
#include "pgas/result_transfer_impl.hpp"

namespace interlace::pgas {

namespace {
std::string addr(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

void bad(Errc code, const std::string& msg) { throw_error(code, "ResultTransfer: " + msg); }

// Spin briefly (the owner usually drains within microseconds), then yield, then sleep.
constexpr int kSpin = 256, kYields = 64;
inline void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

void ResultTransfer::Impl::fail(Errc code, const std::string& msg) noexcept {
  if (failed.load(std::memory_order_acquire)) return;
  try {
    err = code;
    err_msg = msg;
  } catch (...) {
  }
  failed.store(true, std::memory_order_seq_cst);
  wake_producer();
  if (hub && hub->waiting.load(std::memory_order_seq_cst)) p->context().fabric().wake();
}

void ResultTransfer::Impl::rethrow() const {
  throw_error(err, err_msg);
}

void ResultTransfer::Impl::wake_producer() noexcept {
  if (prod_sleeping.load(std::memory_order_seq_cst)) {
    wake_seq.fetch_add(1, std::memory_order_seq_cst);
    wake_seq.notify_all();
  }
}

bool ResultTransfer::Impl::issue_ready() {
  if (failed.load(std::memory_order_acquire)) return false;
  const uint64_t r = ready.load(std::memory_order_acquire);
  uint64_t s = sent.load(std::memory_order_relaxed);
  bool moved = false;
  while (s < r) {
    // One batch per put_signal (FSHMEM: a PUT for every N results), cut where the
    // destination ring or the staging ring wraps, and held back by the credit.
    uint64_t n = std::min<uint64_t>(r - s, batch);
    n = std::min<uint64_t>(n, cap - s % cap);
    n = std::min<uint64_t>(n, stage - s % stage);
    n = std::min<uint64_t>(n, dest_room(s));
    if (n == 0) break;
    const uint64_t value = op == SignalOp::set ? s + n : n;
    try {
      p->put_signal(dom, dest + (s % cap) * es, ring.get() + (s % stage) * es, n * es, signal, value,
                    op, pe);
    } catch (const Error& e) {
      fail(e.code(), std::string("ResultTransfer: putting results ") + std::to_string(s) + ".." +
                         std::to_string(s + n) + " to PE " + std::to_string(pe) + " failed: " + e.what());
      throw;
    }
    s += n;
    sent.store(s, std::memory_order_seq_cst);
    wake_producer();
    moved = true;
  }
  return moved;
}

ResultTransfer::ResultTransfer(Pgas& p, void* dest, size_t elem_size, size_t capacity, int pe,
                               size_t batch, uint64_t* signal, const ArtOptions& o)
    : impl_(std::make_unique<Impl>()) {
  if (batch == 0) bad(Errc::invalid_argument, "batch 0: results are put every `batch` elements, at least 1");
  if (elem_size == 0) bad(Errc::invalid_argument, "element size 0");
  if (capacity < batch)
    bad(Errc::invalid_count, "capacity " + std::to_string(capacity) + " is smaller than the batch " +
                                 std::to_string(batch));
  if (pe < 0 || pe >= p.n_pes())
    bad(Errc::invalid_rank, "destination PE " + std::to_string(pe) + " is out of range (0.." +
                                std::to_string(p.n_pes() - 1) + ")");
  if (capacity > std::numeric_limits<size_t>::max() / elem_size)
    bad(Errc::invalid_count, "capacity " + std::to_string(capacity) + " x " + std::to_string(elem_size) +
                                 " bytes overflows");
  if (!dest || !p.is_symmetric(dest, capacity * elem_size))
    bad(Errc::invalid_argument, "destination " + addr(dest) + " (" + std::to_string(capacity * elem_size) +
                                    " bytes) is not symmetric (use memory from Pgas::malloc)");
  if (!signal || !p.is_symmetric(signal, 8))
    bad(Errc::invalid_argument, "signal " + addr(signal) + " is not symmetric");
  if (reinterpret_cast<uintptr_t>(signal) % 8)
    bad(Errc::invalid_argument, "signal " + addr(signal) + " is not 8-byte aligned");
  if (o.credit && (!p.is_symmetric(o.credit, 8) || reinterpret_cast<uintptr_t>(o.credit) % 8))
    bad(Errc::invalid_argument, "credit word " + addr(o.credit) + " is not a symmetric, 8-byte aligned word");
  if (o.op != SignalOp::set && o.op != SignalOp::add)
    bad(Errc::invalid_argument, "signal operation " + std::to_string(static_cast<int>(o.op)) +
                                    " is neither set nor add");
  if (o.issue == ArtIssue::producer && !p.context().lock().enabled())
    bad(Errc::invalid_argument,
        "ArtIssue::producer calls put_signal from the producer thread, which needs the context lock "
        "(INTERLACE_PROGRESS=thread); use ArtIssue::owner");
  size_t stage = o.stage ? o.stage : (batch <= (size_t{1} << 28) ? 4 * batch : batch);
  if (stage < batch)
    bad(Errc::invalid_count, "staging buffer of " + std::to_string(stage) + " elements is smaller than the batch " +
                                 std::to_string(batch));
  if (stage > std::numeric_limits<size_t>::max() / elem_size)
    bad(Errc::invalid_count, "staging buffer of " + std::to_string(stage) + " elements overflows");
  Impl& m = *impl_;
  m.p = &p;
  m.dest = static_cast<std::byte*>(dest);
  m.es = elem_size;
  m.cap = capacity;
  m.batch = batch;
  m.stage = stage;
  m.pe = pe;
  m.signal = signal;
  m.op = o.op;
  m.credit = o.credit;
  m.issue = o.issue;
  m.owner = std::this_thread::get_id();
  m.ring = std::make_unique<std::byte[]>(stage * elem_size);
  m.dom = p.create_domain();
  m.hub = art_hub(p, true);
  std::lock_guard<std::mutex> g(m.hub->mu);
  m.hub->list.push_back(&m);
}

ResultTransfer::~ResultTransfer() {
  if (!impl_) return;
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> g(m.hub->mu);
    auto& l = m.hub->list;
    l.erase(std::remove(l.begin(), l.end(), &m), l.end());
  }
  try {
    m.p->destroy_domain(m.dom);
  } catch (...) {  // a lost PE: nothing left to complete
  }
}

ResultTransfer::ResultTransfer(ResultTransfer&&) noexcept = default;
ResultTransfer& ResultTransfer::operator=(ResultTransfer&&) noexcept = default;

void ResultTransfer::emit(const void* values, size_t n) {
  Impl& m = *impl_;
  if (m.failed.load(std::memory_order_acquire)) m.rethrow();
  if (m.closed.load(std::memory_order_relaxed))
    bad(Errc::invalid_argument, "emit after close()");
  if (n && !values) bad(Errc::invalid_argument, "emit of " + std::to_string(n) + " results from a null pointer");
  if (!m.credit && (n > m.cap || m.tail > m.cap - n)) {
    const std::string msg = "ResultTransfer: emitting " + std::to_string(n) + " more results after " +
                            std::to_string(m.tail) + " would pass the capacity " + std::to_string(m.cap) +
                            " (without a credit word the destination does not wrap)";
    m.fail(Errc::invalid_count, msg);  // the owner's finish() reports it too
    throw_error(Errc::invalid_count, msg);
  }
  const auto* src = static_cast<const std::byte*>(values);
  const bool own_thread = std::this_thread::get_id() == m.owner;
  while (n > 0) {
    uint64_t room = m.stage - (m.tail - m.sent_cache);
    if (room == 0) {
      m.sent_cache = m.sent.load(std::memory_order_acquire);
      room = m.stage - (m.tail - m.sent_cache);
    }
    if (room == 0) {
      auto has_room = [&] {
        return m.failed.load(std::memory_order_acquire) ||
               m.tail - m.sent.load(std::memory_order_seq_cst) < m.stage;
      };
      if (m.issue == ArtIssue::producer) {
        m.issue_ready();
        if (!has_room()) m.p->wait([&] { return has_room() || m.has_work(); });
      } else if (own_thread) {
        art_wait(*m.p, m.hub.get(), has_room);
      } else {
        for (int i = 0; i < kSpin + kYields && !has_room(); ++i) {
          if (i < kSpin) relax(); else std::this_thread::yield();
        }
        while (!has_room()) {
          const uint32_t seen = m.wake_seq.load(std::memory_order_seq_cst);
          m.prod_sleeping.store(true, std::memory_order_seq_cst);
          if (!has_room()) m.wake_seq.wait(seen, std::memory_order_seq_cst);
          m.prod_sleeping.store(false, std::memory_order_relaxed);
        }
      }
      if (m.failed.load(std::memory_order_acquire)) m.rethrow();
      continue;
    }
    const uint64_t k = std::min<uint64_t>(n, room);
    const uint64_t at = m.tail % m.stage;
    const uint64_t first = std::min<uint64_t>(k, m.stage - at);
    std::memcpy(m.ring.get() + at * m.es, src, first * m.es);
    if (k > first) std::memcpy(m.ring.get(), src + first * m.es, (k - first) * m.es);
    m.tail += k;
    src += k * m.es;
    n -= k;
    if (m.tail - m.published >= m.batch) {
      m.published = m.tail - (m.tail - m.published) % m.batch;
      m.ready.store(m.published, std::memory_order_seq_cst);
      if (m.issue == ArtIssue::producer) m.issue_ready();
      else if (m.hub->waiting.load(std::memory_order_seq_cst)) m.p->context().fabric().wake();
    }
  }
}

void ResultTransfer::flush() {
  Impl& m = *impl_;
  if (m.failed.load(std::memory_order_acquire)) m.rethrow();
  if (m.tail == m.published) return;
  m.published = m.tail;
  m.ready.store(m.published, std::memory_order_seq_cst);
  if (m.issue == ArtIssue::producer) m.issue_ready();
  else if (m.hub->waiting.load(std::memory_order_seq_cst)) m.p->context().fabric().wake();
}

void ResultTransfer::close() {
  Impl& m = *impl_;
  flush();
  if (m.issue == ArtIssue::producer) {
    // Nobody else issues: deliver the rest here, waiting for credit where needed.
    while (m.sent.load(std::memory_order_relaxed) < m.published) {
      if (m.failed.load(std::memory_order_acquire)) m.rethrow();
      if (!m.issue_ready())
        m.p->wait([&] { return m.has_work() || m.failed.load(std::memory_order_acquire); });
    }
  }
  m.closed.store(true, std::memory_order_seq_cst);
  if (m.hub->waiting.load(std::memory_order_seq_cst)) m.p->context().fabric().wake();
}

bool ResultTransfer::poll() {
  Impl& m = *impl_;
  if (std::this_thread::get_id() != m.owner)
    bad(Errc::invalid_argument, "poll() from a thread that does not own the transfer");
  if (m.failed.load(std::memory_order_acquire)) m.rethrow();
  const bool moved = m.issue == ArtIssue::owner && m.issue_ready();
  m.p->poll();
  return moved;
}

void ResultTransfer::finish() {
  Impl& m = *impl_;
  if (std::this_thread::get_id() != m.owner)
    bad(Errc::invalid_argument, "finish() from a thread that does not own the transfer");
  art_wait(*m.p, m.hub.get(), [&] {
    return m.failed.load(std::memory_order_acquire) ||
           (m.closed.load(std::memory_order_seq_cst) &&
            m.sent.load(std::memory_order_seq_cst) == m.ready.load(std::memory_order_seq_cst));
  });
  if (m.failed.load(std::memory_order_acquire)) m.rethrow();
  m.p->quiet(m.dom);
}

size_t ResultTransfer::elem_size() const noexcept { return impl_->es; }
size_t ResultTransfer::batch() const noexcept { return impl_->batch; }
size_t ResultTransfer::capacity() const noexcept { return impl_->cap; }
int ResultTransfer::pe() const noexcept { return impl_->pe; }
uint64_t ResultTransfer::emitted() const noexcept { return impl_->tail; }
uint64_t ResultTransfer::transferred() const noexcept { return impl_->sent.load(std::memory_order_acquire); }

}  // namespace interlace::pgas
