// Reductions of shmem.h: the team forms shmem_TYPENAME_OP_reduce and the deprecated
// active-set forms shmem_TYPENAME_OP_to_all, on the collective engine's allreduce.
//  - Integer and float/double types reduce with the engine's built-in ops on the
//    engine datatype of the same width and signedness.
//  - Complex SUM is the built-in sum over the real and imaginary parts (a float32 or
//    float64 pair per element). long double and complex PROD have no engine datatype:
//    they reduce as bytes with an op of ours, on recursive doubling, which exchanges
//    whole vectors, so no algorithm ever cuts an element in two.
//  - source == dest is an in-place reduction (coll::IN_PLACE); buffers that overlap
//    otherwise are an error, as the specification allows only the two cases.
#include <complex>
#include <cstring>
#include <type_traits>

#include "compat/shmem/shmem_team.hpp"

namespace interlace::shmem::teams {

namespace {

template <class T> struct complex_of { using type = void; };
template <> struct complex_of<INTERLACE_SHMEM_COMPLEXF> { using type = std::complex<float>; };
template <> struct complex_of<INTERLACE_SHMEM_COMPLEXD> { using type = std::complex<double>; };

template <class T>
constexpr Datatype integer_type() {
  constexpr bool s = std::is_signed_v<T>;
  switch (sizeof(T)) {
    case 1: return s ? Datatype::int8 : Datatype::uint8;
    case 2: return s ? Datatype::int16 : Datatype::uint16;
    case 4: return s ? Datatype::int32 : Datatype::uint32;
    default: return s ? Datatype::int64 : Datatype::uint64;
  }
}

ReduceOp builtin(RedOp op) {
  switch (op) {
    case RedOp::and_: return ReduceOp::band;
    case RedOp::or_: return ReduceOp::bor;
    case RedOp::xor_: return ReduceOp::bxor;
    case RedOp::max: return ReduceOp::max;
    case RedOp::min: return ReduceOp::min;
    case RedOp::sum: return ReduceOp::sum;
    case RedOp::prod: break;
  }
  return ReduceOp::prod;
}

const char* op_name(RedOp op) {
  static const char* names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
  return names[static_cast<int>(op)];
}

// An op on elements of V stored in byte buffers (count is in bytes).
template <class V, class F>
Reduction by_bytes(F f, RedOp op) {
  Reduction r;
  r.dt = Datatype::bytes;
  r.per_elem = sizeof(V);
  r.op = coll::Op(
      [f](const void* in, void* inout, size_t count, Datatype) {
        const auto* a = static_cast<const std::byte*>(in);
        auto* b = static_cast<std::byte*>(inout);
        for (size_t i = 0; i + sizeof(V) <= count; i += sizeof(V)) {
          V x, y;  // memcpy: scratch buffers promise no alignment for long double
          std::memcpy(&x, a + i, sizeof(V));
          std::memcpy(&y, b + i, sizeof(V));
          y = f(x, y);
          std::memcpy(b + i, &y, sizeof(V));
        }
      },
      true, std::string("shmem ") + op_name(op));
  r.opts.algorithm = "recursive_doubling";
  return r;
}

}  // namespace

template <class T>
Reduction reduction_for(RedOp op) {
  using C = typename complex_of<T>::type;
  if constexpr (!std::is_void_v<C>) {
    if (op == RedOp::sum) {
      Reduction r;
      r.dt = sizeof(typename C::value_type) == 4 ? Datatype::float32 : Datatype::float64;
      r.per_elem = 2;
      r.op = ReduceOp::sum;
      return r;
    }
    return by_bytes<C>([](C a, C b) { return a * b; }, op);
  } else if constexpr (std::is_same_v<T, long double>) {
    switch (op) {
      case RedOp::max: return by_bytes<T>([](T a, T b) { return a > b ? a : b; }, op);
      case RedOp::min: return by_bytes<T>([](T a, T b) { return a < b ? a : b; }, op);
      case RedOp::sum: return by_bytes<T>([](T a, T b) { return a + b; }, op);
      default: return by_bytes<T>([](T a, T b) { return a * b; }, op);
    }
  } else {
    Reduction r;
    if constexpr (std::is_floating_point_v<T>)
      r.dt = sizeof(T) == 4 ? Datatype::float32 : Datatype::float64;
    else
      r.dt = integer_type<T>();
    r.op = builtin(op);
    return r;
  }
}

void reduce(const Communicator& c, void* dest, const void* src, size_t n, size_t elem,
            const Reduction& r, const char*) {
  const size_t bytes = bytes_of(n, elem, "nreduce");
  if (bytes == 0) return;  // every PE passes the same nreduce
  if (!dest || !src) throw Error(Errc::invalid_argument, std::string(dest ? "source" : "dest") + " is NULL");
  const auto* d = static_cast<const std::byte*>(dest);
  const auto* s = static_cast<const std::byte*>(src);
  if (d != s && d < s + bytes && s < d + bytes)
    throw Error(Errc::invalid_argument, "source and dest overlap without being the same array "
                                        "(only in-place or disjoint reductions are allowed)");
  const void* send = d == s ? coll::IN_PLACE : src;
  coll::allreduce(c, send, dest, n * r.per_elem, r.dt, r.op, r.opts);
}

}  // namespace interlace::shmem::teams

using namespace interlace;
using namespace interlace::shmem::teams;

namespace {

template <class T>
int team_reduce(const char* routine, RedOp op, shmem_team_t t, T* d, const T* s, size_t n) {
  return shmem::call(routine, [&] {
    reduce(team(t, routine).comm, d, s, n, sizeof(T), reduction_for<T>(op), routine);
    return 0;
  });
}

template <class T>
void set_reduce(const char* routine, RedOp op, T* d, const T* s, int n, int start, int ls, int size) {
  shmem::call(routine, [&] {
    if (n < 0) throw Error(Errc::invalid_count, "nreduce " + std::to_string(n) + " is negative");
    reduce(active_set(start, ls, size, routine), d, s, static_cast<size_t>(n), sizeof(T),
           reduction_for<T>(op), routine);
  });
}

}  // namespace

extern "C" {

#define INTERLACE_SHMEM_DEF_REDUCE(T, N, OP, E)                                         \
  int shmem_##N##_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {           \
    return team_reduce<T>("shmem_" #N "_" #OP "_reduce", RedOp::E, t, d, s, n);         \
  }
#define INTERLACE_SHMEM_DEF_BITWISE(T, N)                                               \
  INTERLACE_SHMEM_DEF_REDUCE(T, N, and, and_) INTERLACE_SHMEM_DEF_REDUCE(T, N, or, or_) \
  INTERLACE_SHMEM_DEF_REDUCE(T, N, xor, xor_)
#define INTERLACE_SHMEM_DEF_COMPARE(T, N)                                               \
  INTERLACE_SHMEM_DEF_REDUCE(T, N, max, max) INTERLACE_SHMEM_DEF_REDUCE(T, N, min, min)
#define INTERLACE_SHMEM_DEF_ARITH(T, N)                                                 \
  INTERLACE_SHMEM_DEF_REDUCE(T, N, sum, sum) INTERLACE_SHMEM_DEF_REDUCE(T, N, prod, prod)
INTERLACE_SHMEM_BITWISE_TYPES(INTERLACE_SHMEM_DEF_BITWISE)
INTERLACE_SHMEM_COMPARE_TYPES(INTERLACE_SHMEM_DEF_COMPARE)
INTERLACE_SHMEM_ARITH_TYPES(INTERLACE_SHMEM_DEF_ARITH)

#define INTERLACE_SHMEM_DEF_TOALL(T, N, OP, E)                                          \
  void shmem_##N##_##OP##_to_all(T* d, const T* s, int n, int start, int ls, int size,  \
                                 T*, long*) {                                           \
    set_reduce<T>("shmem_" #N "_" #OP "_to_all", RedOp::E, d, s, n, start, ls, size);   \
  }
#define INTERLACE_SHMEM_DEF_TOALL_BITWISE(T, N)                                         \
  INTERLACE_SHMEM_DEF_TOALL(T, N, and, and_) INTERLACE_SHMEM_DEF_TOALL(T, N, or, or_)   \
  INTERLACE_SHMEM_DEF_TOALL(T, N, xor, xor_)
#define INTERLACE_SHMEM_DEF_TOALL_COMPARE(T, N)                                         \
  INTERLACE_SHMEM_DEF_TOALL(T, N, max, max) INTERLACE_SHMEM_DEF_TOALL(T, N, min, min)
#define INTERLACE_SHMEM_DEF_TOALL_ARITH(T, N)                                           \
  INTERLACE_SHMEM_DEF_TOALL(T, N, sum, sum) INTERLACE_SHMEM_DEF_TOALL(T, N, prod, prod)
INTERLACE_SHMEM_TOALL_BITWISE_TYPES(INTERLACE_SHMEM_DEF_TOALL_BITWISE)
INTERLACE_SHMEM_TOALL_COMPARE_TYPES(INTERLACE_SHMEM_DEF_TOALL_COMPARE)
INTERLACE_SHMEM_TOALL_ARITH_TYPES(INTERLACE_SHMEM_DEF_TOALL_ARITH)

}  // extern "C"
