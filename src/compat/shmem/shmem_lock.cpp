// Distributed locks: a ticket lock in PE 0's copy of the symmetric long, updated with
// remote atomics (docs/shmem.md#locks). The high 32 bits hand out tickets, the low 32
// bits are the ticket being served; the lock is free when they are equal, so the
// specification's initial value 0 is a free lock. Tickets make the lock fair (FIFO),
// and a waiting PE only reads the word, backing off from polling to yielding to short
// sleeps so that it does not keep a core busy.
#include <sched.h>
#include <time.h>

#include "compat/shmem/shmem_entry.hpp"
#include "interlace/core/error.hpp"


namespace {

constexpr uint64_t kTicket = uint64_t{1} << 32;
constexpr uint64_t kServing = 0xffffffffu;
constexpr int kHome = 0;  // the PE whose copy is the lock

static_assert(sizeof(long) == 8, "the ticket lock needs a 64-bit long");

uint64_t amo(pgas::Pgas& p, pgas::AmoOp op, long* lock, uint64_t operand, uint64_t compare = 0) {
  uint64_t old = 0;
  p.atomic(p.default_domain(), op, pgas::AmoType::u64, lock, &operand, &compare, &old, kHome);
  return old;
}

uint32_t ticket(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint32_t serving(uint64_t v) { return static_cast<uint32_t>(v & kServing); }

class Backoff {
 public:
  void pause(pgas::Pgas& p) {
    p.poll();  // serve requests while waiting: the holder may need this PE's progress
    ++rounds_;
    if (rounds_ < 64) return;
    if (rounds_ < 1024) {
      sched_yield();
      return;
    }
    timespec ts{0, 100 * 1000};  // 100 us: the holder is slow, stop competing for a core
    nanosleep(&ts, nullptr);
  }

 private:
  unsigned rounds_ = 0;
};

}  // namespace

extern "C" {

void shmem_set_lock(long* lock) {
  call("shmem_set_lock", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_set_lock");
    check_ptr(lock, "lock");
    uint64_t v = amo(p, pgas::AmoOp::fetch_add, lock, kTicket);
    uint32_t mine = ticket(v);
    Backoff backoff;
    while (serving(v) != mine) {
      backoff.pause(p);
      v = amo(p, pgas::AmoOp::fetch, lock, 0);
    }
  });
}

int shmem_test_lock(long* lock) {
  return call("shmem_test_lock", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_test_lock");
    check_ptr(lock, "lock");
    uint64_t v = amo(p, pgas::AmoOp::fetch, lock, 0);
    if (ticket(v) != serving(v)) return 1;  // held
    // Take the next ticket only if nobody did in between: then it is the one served.
    return amo(p, pgas::AmoOp::cswap, lock, v + kTicket, v) == v ? 0 : 1;
  });
}

void shmem_clear_lock(long* lock) {
  call("shmem_clear_lock", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_clear_lock");
    check_ptr(lock, "lock");
    // Updates made under the lock are complete before the next holder can see it free.
    p.quiet_all();
    uint64_t v = amo(p, pgas::AmoOp::fetch, lock, 0);
    for (;;) {
      if (ticket(v) == serving(v)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(lock));
        throw_error(Errc::invalid_argument, std::string("the lock at ") + buf + " is not held");
      }
      // Only the low half changes (a carry must not reach the tickets); others may take
      // tickets meanwhile, so compare-and-swap until the word did not change under us.
      uint64_t next = (v & ~kServing) | ((v + 1) & kServing);
      uint64_t old = amo(p, pgas::AmoOp::cswap, lock, next, v);
      if (old == v) return;
      v = old;
    }
  });
}

}  // extern "C"
