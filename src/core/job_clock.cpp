#include "interlace/core/job_clock.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "interlace/core/error.hpp"

#include "interlace/clock.h"

namespace interlace::clock {

namespace {

struct Installed {
  Source fn = nullptr;
  void* ctx = nullptr;
  Advance advance = nullptr;
};

thread_local Installed t_source;
// Process-wide source: both words are read without a lock, so they are set in order
// (ctx, then fn) and cleared in reverse; a source outlives every reader by contract
// (a fabric clears it before it goes away, after its rank stopped calling).
std::atomic<Source> g_fn{nullptr};
std::atomic<void*> g_ctx{nullptr};
std::atomic<Advance> g_advance{nullptr};

}  // namespace

void set_source(Source fn, void* ctx, bool process_wide, Advance advance) {
  t_source = {fn, ctx, advance};
  if (process_wide) {
    g_ctx.store(ctx, std::memory_order_relaxed);
    g_advance.store(advance, std::memory_order_relaxed);
    g_fn.store(fn, std::memory_order_release);
  }
}

void clear_source(void* ctx) {
  if (t_source.ctx == ctx) t_source = {};
  if (g_ctx.load(std::memory_order_relaxed) == ctx) {
    g_fn.store(nullptr, std::memory_order_release);
    g_advance.store(nullptr, std::memory_order_relaxed);
    g_ctx.store(nullptr, std::memory_order_relaxed);
  }
}

void charge(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw_error(Errc::invalid_argument, "interlace_charge: " + std::to_string(seconds) +
                                            " s is not a finite non-negative time");
  if (t_source.fn) {
    if (t_source.advance) t_source.advance(t_source.ctx, seconds);
    return;
  }
  if (g_fn.load(std::memory_order_acquire))
    if (Advance a = g_advance.load(std::memory_order_relaxed)) a(g_ctx.load(std::memory_order_relaxed), seconds);
}

double now() {
  if (t_source.fn) return t_source.fn(t_source.ctx);
  if (Source fn = g_fn.load(std::memory_order_acquire)) return fn(g_ctx.load(std::memory_order_relaxed));
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool is_virtual() { return t_source.fn || g_fn.load(std::memory_order_acquire); }

double resolution() {
  if (is_virtual()) return 1e-12;  // virtual time is kept in picoseconds
  using period = std::chrono::steady_clock::period;
  return static_cast<double>(period::num) / period::den;
}

}  // namespace interlace::clock

extern "C" double interlace_wtime(void) { return interlace::clock::now(); }
extern "C" double interlace_wtick(void) { return interlace::clock::resolution(); }
extern "C" int interlace_charge(double seconds) {
  try {
    interlace::clock::charge(seconds);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interlace: %s\n", e.what());
    return -1;
  }
}
extern "C" int interlace_wtime_is_virtual(void) { return interlace::clock::is_virtual() ? 1 : 0; }
