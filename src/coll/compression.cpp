// Compression plugins: the catalogue and the two built-ins. Narrowing float32 or
// float64 to 16 bits halves (quarters) the bytes on the wire at the cost of
// precision, the trade ACCL+ offers for bandwidth-bound collectives.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coll/compression.hpp"
#include "interlace/core/half.hpp"
#include "interlace/core/error.hpp"

namespace interlace::coll {

namespace {

// The inline, branch-free conversions (core/half.hpp) let these loops vectorise; the
// out-of-line ones cost a call per element, which made compression slower than the
// bytes it saved (docs/collectives.md). An AVX2 copy of each loop runs where the CPU
// has it (2x the SSE2 loop here), chosen by a plain check at the first call: GCC's
// target_clones uses an ifunc resolver, which runs before the sanitizer runtimes
// start and crashed the TSan build at load time.
template <uint16_t (*Narrow)(float) noexcept>
[[gnu::always_inline]] inline void narrow_loop(const void* in, void* out, size_t n, Datatype dt) {
  auto* o = static_cast<uint16_t*>(out);
  if (dt == Datatype::float32) {
    const auto* f = static_cast<const float*>(in);
    for (size_t i = 0; i < n; ++i) o[i] = Narrow(f[i]);
  } else {
    const auto* d = static_cast<const double*>(in);
    for (size_t i = 0; i < n; ++i) o[i] = Narrow(static_cast<float>(d[i]));
  }
}

template <float (*Widen)(uint16_t) noexcept>
[[gnu::always_inline]] inline void widen_loop(const void* in, void* out, size_t n, Datatype dt) {
  const auto* w = static_cast<const uint16_t*>(in);
  if (dt == Datatype::float32) {
    auto* f = static_cast<float*>(out);
    for (size_t i = 0; i < n; ++i) f[i] = Widen(w[i]);
  } else {
    auto* d = static_cast<double*>(out);
    for (size_t i = 0; i < n; ++i) d[i] = Widen(w[i]);
  }
}

using Codec = void (*)(const void*, void*, size_t, Datatype);

template <uint16_t (*Narrow)(float) noexcept>
[[gnu::target("avx2")]] void narrow_avx2(const void* in, void* out, size_t n, Datatype dt) {
  narrow_loop<Narrow>(in, out, n, dt);
}
template <uint16_t (*Narrow)(float) noexcept>
void narrow_base(const void* in, void* out, size_t n, Datatype dt) {
  narrow_loop<Narrow>(in, out, n, dt);
}
template <uint16_t (*Narrow)(float) noexcept>
void narrow(const void* in, void* out, size_t n, Datatype dt) {
  static const Codec fn = __builtin_cpu_supports("avx2") ? narrow_avx2<Narrow> : narrow_base<Narrow>;
  fn(in, out, n, dt);
}

template <float (*Widen)(uint16_t) noexcept>
[[gnu::target("avx2")]] void widen_avx2(const void* in, void* out, size_t n, Datatype dt) {
  widen_loop<Widen>(in, out, n, dt);
}
template <float (*Widen)(uint16_t) noexcept>
void widen_base(const void* in, void* out, size_t n, Datatype dt) {
  widen_loop<Widen>(in, out, n, dt);
}
template <float (*Widen)(uint16_t) noexcept>
void widen(const void* in, void* out, size_t n, Datatype dt) {
  static const Codec fn = __builtin_cpu_supports("avx2") ? widen_avx2<Widen> : widen_base<Widen>;
  fn(in, out, n, dt);
}

bool wide_float(Datatype dt) { return dt == Datatype::float32 || dt == Datatype::float64; }

struct Catalogue {
  std::mutex m;
  std::vector<std::shared_ptr<const Compressor>> all;
  Catalogue() {
    all.push_back(std::make_shared<Compressor>(Compressor{"fp16", Datatype::float16, wide_float,
                                                          narrow<detail::float_to_half_inline>,
                                                          widen<detail::half_to_float_inline>}));
    all.push_back(std::make_shared<Compressor>(Compressor{"bf16", Datatype::bfloat16, wide_float,
                                                          narrow<detail::float_to_bfloat16_inline>,
                                                          widen<detail::bfloat16_to_float_inline>}));
  }
};

Catalogue& catalogue() {
  static Catalogue c;
  return c;
}

}  // namespace

void register_compressor(Compressor c) {
  if (c.name.empty() || !c.compress || !c.decompress || !c.accepts)
    throw_error(Errc::invalid_argument, "register_compressor: a compressor needs a name, accepts, compress and "
                                        "decompress");
  auto& cat = catalogue();
  std::lock_guard<std::mutex> g(cat.m);
  auto p = std::make_shared<const Compressor>(std::move(c));
  for (auto& old : cat.all)
    if (old->name == p->name) {
      old = p;
      return;
    }
  cat.all.push_back(p);
}

std::vector<std::string> compressor_names() {
  auto& cat = catalogue();
  std::lock_guard<std::mutex> g(cat.m);
  std::vector<std::string> out;
  for (auto& c : cat.all) out.push_back(c->name);
  return out;
}

std::shared_ptr<const Compressor> find_compressor(const std::string& name, Datatype dt, const char* op) {
  auto& cat = catalogue();
  std::lock_guard<std::mutex> g(cat.m);
  std::string known;
  for (auto& c : cat.all) {
    if (c->name == name) {
      if (!c->accepts(dt))
        throw_error(Errc::invalid_argument, std::string(op) + ": compression '" + name + "' does not accept " +
                                                std::string(datatype_name(dt)) + " data");
      return c;
    }
    known += (known.empty() ? "" : ", ") + c->name;
  }
  throw_error(Errc::invalid_argument, std::string(op) + ": unknown compression '" + name + "'; known: " + known);
}

}  // namespace interlace::coll
