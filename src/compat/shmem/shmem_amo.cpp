// Atomic memory operations: shmem_<TYPENAME>_atomic_* (standard, extended and bitwise AMO
// types), their shmem_ctx_ and _nbi forms, and the deprecated 1.3 names.
#include "compat/shmem/shmem_amo.hpp"

namespace interlace::shmem {

void amo_any(const char* routine, shmem_ctx_t ctx, pgas::AmoOp op, pgas::AmoType type,
             void* target, const void* operand, const void* compare, void* fetch_out, int pe,
             bool nbi) {
  call(routine, [&] {
    pgas::Pgas& p = pgas(routine);
    pgas::Domain& d = domain_of(p, ctx);
    int wpe = target_pe(ctx, pe);
    check_ptr(target, op == pgas::AmoOp::fetch ? "source" : "dest");
    p.atomic(d, op, type, target, operand, compare, fetch_out, wpe, nbi);
  });
}

}  // namespace interlace::shmem

using namespace interlace::shmem;
using interlace::pgas::AmoOp;

#define SHMEMI_DEF_AMO_EXT(T, N)                                                              \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* s, int pe) {                      \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_fetch", ctx, AmoOp::fetch, s, static_cast<T>(0), static_cast<T>(0), pe); \
  }                                                                                          \
  T shmem_##N##_atomic_fetch(const T* s, int pe) {                                           \
    return amo_fetching<T>("shmem_" #N "_atomic_fetch", SHMEM_CTX_DEFAULT, AmoOp::fetch, s,  \
                           static_cast<T>(0), static_cast<T>(0), pe);                                                    \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* d, T v, int pe) {                      \
    amo_plain<T>("shmem_ctx_" #N "_atomic_set", ctx, AmoOp::set, d, v, pe);                  \
  }                                                                                          \
  void shmem_##N##_atomic_set(T* d, T v, int pe) {                                           \
    amo_plain<T>("shmem_" #N "_atomic_set", SHMEM_CTX_DEFAULT, AmoOp::set, d, v, pe);        \
  }                                                                                          \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* d, T v, int pe) {                        \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_swap", ctx, AmoOp::swap, d, v, static_cast<T>(0), pe); \
  }                                                                                          \
  T shmem_##N##_atomic_swap(T* d, T v, int pe) {                                             \
    return amo_fetching<T>("shmem_" #N "_atomic_swap", SHMEM_CTX_DEFAULT, AmoOp::swap, d, v, \
                           static_cast<T>(0), pe);                                                         \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* f, const T* s, int pe) {         \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_fetch_nbi", ctx, AmoOp::fetch, f, s, static_cast<T>(0),   \
                        static_cast<T>(0), pe);                                                            \
  }                                                                                          \
  void shmem_##N##_atomic_fetch_nbi(T* f, const T* s, int pe) {                              \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_fetch_nbi", SHMEM_CTX_DEFAULT, AmoOp::fetch, f, \
                        s, static_cast<T>(0), static_cast<T>(0), pe);                                                    \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* f, T* d, T v, int pe) {           \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_swap_nbi", ctx, AmoOp::swap, f, d, v, static_cast<T>(0),  \
                        pe);                                                                 \
  }                                                                                          \
  void shmem_##N##_atomic_swap_nbi(T* f, T* d, T v, int pe) {                                \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_swap_nbi", SHMEM_CTX_DEFAULT, AmoOp::swap, f,   \
                        d, v, static_cast<T>(0), pe);                                                      \
  }

#define SHMEMI_DEF_AMO_STD(T, N)                                                              \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* d, T c, T v, int pe) {           \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_compare_swap", ctx, AmoOp::cswap, d, v,  \
                           c, pe);                                                           \
  }                                                                                          \
  T shmem_##N##_atomic_compare_swap(T* d, T c, T v, int pe) {                                \
    return amo_fetching<T>("shmem_" #N "_atomic_compare_swap", SHMEM_CTX_DEFAULT,            \
                           AmoOp::cswap, d, v, c, pe);                                       \
  }                                                                                          \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* d, int pe) {                        \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_fetch_inc", ctx, AmoOp::fetch_add, d,    \
                           static_cast<T>(1), static_cast<T>(0), pe);                                                   \
  }                                                                                          \
  T shmem_##N##_atomic_fetch_inc(T* d, int pe) {                                             \
    return amo_fetching<T>("shmem_" #N "_atomic_fetch_inc", SHMEM_CTX_DEFAULT,               \
                           AmoOp::fetch_add, d, static_cast<T>(1), static_cast<T>(0), pe);                              \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* d, int pe) {                           \
    amo_plain<T>("shmem_ctx_" #N "_atomic_inc", ctx, AmoOp::add, d, static_cast<T>(1), pe);               \
  }                                                                                          \
  void shmem_##N##_atomic_inc(T* d, int pe) {                                                \
    amo_plain<T>("shmem_" #N "_atomic_inc", SHMEM_CTX_DEFAULT, AmoOp::add, d, static_cast<T>(1), pe);     \
  }                                                                                          \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* d, T v, int pe) {                   \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_fetch_add", ctx, AmoOp::fetch_add, d, v, \
                           static_cast<T>(0), pe);                                                         \
  }                                                                                          \
  T shmem_##N##_atomic_fetch_add(T* d, T v, int pe) {                                        \
    return amo_fetching<T>("shmem_" #N "_atomic_fetch_add", SHMEM_CTX_DEFAULT,               \
                           AmoOp::fetch_add, d, v, static_cast<T>(0), pe);                                 \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* d, T v, int pe) {                      \
    amo_plain<T>("shmem_ctx_" #N "_atomic_add", ctx, AmoOp::add, d, v, pe);                  \
  }                                                                                          \
  void shmem_##N##_atomic_add(T* d, T v, int pe) {                                           \
    amo_plain<T>("shmem_" #N "_atomic_add", SHMEM_CTX_DEFAULT, AmoOp::add, d, v, pe);        \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* f, T* d, T c, T v,        \
                                               int pe) {                                     \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_compare_swap_nbi", ctx, AmoOp::cswap, f, d, \
                        v, c, pe);                                                           \
  }                                                                                          \
  void shmem_##N##_atomic_compare_swap_nbi(T* f, T* d, T c, T v, int pe) {                   \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_compare_swap_nbi", SHMEM_CTX_DEFAULT,           \
                        AmoOp::cswap, f, d, v, c, pe);                                       \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* f, T* d, int pe) {           \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_fetch_inc_nbi", ctx, AmoOp::fetch_add, f,   \
                        d, static_cast<T>(1), static_cast<T>(0), pe);                                                   \
  }                                                                                          \
  void shmem_##N##_atomic_fetch_inc_nbi(T* f, T* d, int pe) {                                \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_fetch_inc_nbi", SHMEM_CTX_DEFAULT,              \
                        AmoOp::fetch_add, f, d, static_cast<T>(1), static_cast<T>(0), pe);                              \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* f, T* d, T v, int pe) {      \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_fetch_add_nbi", ctx, AmoOp::fetch_add, f,   \
                        d, v, static_cast<T>(0), pe);                                                      \
  }                                                                                          \
  void shmem_##N##_atomic_fetch_add_nbi(T* f, T* d, T v, int pe) {                           \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_fetch_add_nbi", SHMEM_CTX_DEFAULT,              \
                        AmoOp::fetch_add, f, d, v, static_cast<T>(0), pe);                                 \
  }

#define SHMEMI_DEF_AMO_BIT_OP(T, N, OP, FOP, POP)                                             \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T* d, T v, int pe) {                  \
    return amo_fetching<T>("shmem_ctx_" #N "_atomic_fetch_" #OP, ctx, AmoOp::FOP, d, v, static_cast<T>(0), \
                           pe);                                                              \
  }                                                                                          \
  T shmem_##N##_atomic_fetch_##OP(T* d, T v, int pe) {                                       \
    return amo_fetching<T>("shmem_" #N "_atomic_fetch_" #OP, SHMEM_CTX_DEFAULT, AmoOp::FOP,  \
                           d, v, static_cast<T>(0), pe);                                                   \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T* d, T v, int pe) {                     \
    amo_plain<T>("shmem_ctx_" #N "_atomic_" #OP, ctx, AmoOp::POP, d, v, pe);                 \
  }                                                                                          \
  void shmem_##N##_atomic_##OP(T* d, T v, int pe) {                                          \
    amo_plain<T>("shmem_" #N "_atomic_" #OP, SHMEM_CTX_DEFAULT, AmoOp::POP, d, v, pe);       \
  }                                                                                          \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T* f, T* d, T v, int pe) {   \
    amo_fetching_nbi<T>("shmem_ctx_" #N "_atomic_fetch_" #OP "_nbi", ctx, AmoOp::FOP, f, d,  \
                        v, static_cast<T>(0), pe);                                                         \
  }                                                                                          \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* f, T* d, T v, int pe) {                        \
    amo_fetching_nbi<T>("shmem_" #N "_atomic_fetch_" #OP "_nbi", SHMEM_CTX_DEFAULT,          \
                        AmoOp::FOP, f, d, v, static_cast<T>(0), pe);                                       \
  }
#define SHMEMI_DEF_AMO_BIT(T, N)                            \
  SHMEMI_DEF_AMO_BIT_OP(T, N, and, fetch_and, and_)         \
  SHMEMI_DEF_AMO_BIT_OP(T, N, or, fetch_or, or_)            \
  SHMEMI_DEF_AMO_BIT_OP(T, N, xor, fetch_xor, xor_)

#define SHMEMI_DEF_AMO_DEP_EXT(T, N)                                                          \
  T shmem_##N##_fetch(const T* s, int pe) {                                                  \
    return amo_fetching<T>("shmem_" #N "_fetch", SHMEM_CTX_DEFAULT, AmoOp::fetch, s, static_cast<T>(0), static_cast<T>(0), \
                           pe);                                                              \
  }                                                                                          \
  void shmem_##N##_set(T* d, T v, int pe) {                                                  \
    amo_plain<T>("shmem_" #N "_set", SHMEM_CTX_DEFAULT, AmoOp::set, d, v, pe);               \
  }                                                                                          \
  T shmem_##N##_swap(T* d, T v, int pe) {                                                    \
    return amo_fetching<T>("shmem_" #N "_swap", SHMEM_CTX_DEFAULT, AmoOp::swap, d, v, static_cast<T>(0), pe); \
  }
#define SHMEMI_DEF_AMO_DEP(T, N)                                                              \
  T shmem_##N##_cswap(T* d, T c, T v, int pe) {                                              \
    return amo_fetching<T>("shmem_" #N "_cswap", SHMEM_CTX_DEFAULT, AmoOp::cswap, d, v, c, pe); \
  }                                                                                          \
  T shmem_##N##_finc(T* d, int pe) {                                                         \
    return amo_fetching<T>("shmem_" #N "_finc", SHMEM_CTX_DEFAULT, AmoOp::fetch_add, d, static_cast<T>(1), \
                           static_cast<T>(0), pe);                                                         \
  }                                                                                          \
  void shmem_##N##_inc(T* d, int pe) {                                                       \
    amo_plain<T>("shmem_" #N "_inc", SHMEM_CTX_DEFAULT, AmoOp::add, d, static_cast<T>(1), pe);            \
  }                                                                                          \
  T shmem_##N##_fadd(T* d, T v, int pe) {                                                    \
    return amo_fetching<T>("shmem_" #N "_fadd", SHMEM_CTX_DEFAULT, AmoOp::fetch_add, d, v,   \
                           static_cast<T>(0), pe);                                                         \
  }                                                                                          \
  void shmem_##N##_add(T* d, T v, int pe) {                                                  \
    amo_plain<T>("shmem_" #N "_add", SHMEM_CTX_DEFAULT, AmoOp::add, d, v, pe);               \
  }

extern "C" {
SHMEMI_EXT_AMO_TYPES(SHMEMI_DEF_AMO_EXT)
SHMEMI_AMO_TYPES(SHMEMI_DEF_AMO_STD)
SHMEMI_BITWISE_AMO_TYPES(SHMEMI_DEF_AMO_BIT)
SHMEMI_DEP_EXT_AMO_TYPES(SHMEMI_DEF_AMO_DEP_EXT)
SHMEMI_DEP_AMO_TYPES(SHMEMI_DEF_AMO_DEP)

long shmem_swap(long* d, long v, int pe) {
  return amo_fetching<long>("shmem_swap", SHMEM_CTX_DEFAULT, AmoOp::swap, d, v, 0L, pe);
}
}
