// The typed RMA entry points, shmem_<TYPENAME>_put ... and their shmem_ctx_ forms, for
// every standard RMA type (the table SHMEMI_RMA_TYPES of shmem.h).
#include "compat/shmem/shmem_rma.hpp"

using namespace interlace::shmem;

#define SHMEMI_DEF_RMA(T, N)                                                                  \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* d, const T* s, size_t n, int pe) {            \
    rma("shmem_ctx_" #N "_put", ctx, Dir::put, d, s, n, sizeof(T), pe, false);               \
  }                                                                                          \
  void shmem_##N##_put(T* d, const T* s, size_t n, int pe) {                                 \
    rma("shmem_" #N "_put", SHMEM_CTX_DEFAULT, Dir::put, d, s, n, sizeof(T), pe, false);     \
  }                                                                                          \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* d, const T* s, size_t n, int pe) {            \
    rma("shmem_ctx_" #N "_get", ctx, Dir::get, d, s, n, sizeof(T), pe, false);               \
  }                                                                                          \
  void shmem_##N##_get(T* d, const T* s, size_t n, int pe) {                                 \
    rma("shmem_" #N "_get", SHMEM_CTX_DEFAULT, Dir::get, d, s, n, sizeof(T), pe, false);     \
  }                                                                                          \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* d, const T* s, size_t n, int pe) {        \
    rma("shmem_ctx_" #N "_put_nbi", ctx, Dir::put, d, s, n, sizeof(T), pe, true);            \
  }                                                                                          \
  void shmem_##N##_put_nbi(T* d, const T* s, size_t n, int pe) {                             \
    rma("shmem_" #N "_put_nbi", SHMEM_CTX_DEFAULT, Dir::put, d, s, n, sizeof(T), pe, true);  \
  }                                                                                          \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* d, const T* s, size_t n, int pe) {        \
    rma("shmem_ctx_" #N "_get_nbi", ctx, Dir::get, d, s, n, sizeof(T), pe, true);            \
  }                                                                                          \
  void shmem_##N##_get_nbi(T* d, const T* s, size_t n, int pe) {                             \
    rma("shmem_" #N "_get_nbi", SHMEM_CTX_DEFAULT, Dir::get, d, s, n, sizeof(T), pe, true);  \
  }                                                                                          \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* d, T v, int pe) {                               \
    rma("shmem_ctx_" #N "_p", ctx, Dir::put, d, &v, 1, sizeof(T), pe, false);                \
  }                                                                                          \
  void shmem_##N##_p(T* d, T v, int pe) {                                                    \
    rma("shmem_" #N "_p", SHMEM_CTX_DEFAULT, Dir::put, d, &v, 1, sizeof(T), pe, false);      \
  }                                                                                          \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* s, int pe) {                                 \
    T v{};                                                                                   \
    rma("shmem_ctx_" #N "_g", ctx, Dir::get, &v, s, 1, sizeof(T), pe, false);                \
    return v;                                                                                \
  }                                                                                          \
  T shmem_##N##_g(const T* s, int pe) {                                                      \
    T v{};                                                                                   \
    rma("shmem_" #N "_g", SHMEM_CTX_DEFAULT, Dir::get, &v, s, 1, sizeof(T), pe, false);      \
    return v;                                                                                \
  }                                                                                          \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t n, int pe) {                                              \
    rma_strided("shmem_ctx_" #N "_iput", ctx, Dir::put, d, s, dst, sst, n, sizeof(T), pe);   \
  }                                                                                          \
  void shmem_##N##_iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {  \
    rma_strided("shmem_" #N "_iput", SHMEM_CTX_DEFAULT, Dir::put, d, s, dst, sst, n,         \
                sizeof(T), pe);                                                              \
  }                                                                                          \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t n, int pe) {                                              \
    rma_strided("shmem_ctx_" #N "_iget", ctx, Dir::get, d, s, dst, sst, n, sizeof(T), pe);   \
  }                                                                                          \
  void shmem_##N##_iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {  \
    rma_strided("shmem_" #N "_iget", SHMEM_CTX_DEFAULT, Dir::get, d, s, dst, sst, n,         \
                sizeof(T), pe);                                                              \
  }                                                                                          \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* d, const T* s, size_t n,               \
                                  uint64_t* sig, uint64_t sv, int op, int pe) {              \
    rma_signal("shmem_ctx_" #N "_put_signal", ctx, d, s, n, sizeof(T), sig, sv, op, pe,      \
               false);                                                                       \
  }                                                                                          \
  void shmem_##N##_put_signal(T* d, const T* s, size_t n, uint64_t* sig, uint64_t sv, int op, \
                              int pe) {                                                      \
    rma_signal("shmem_" #N "_put_signal", SHMEM_CTX_DEFAULT, d, s, n, sizeof(T), sig, sv, op, \
               pe, false);                                                                   \
  }                                                                                          \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* d, const T* s, size_t n,           \
                                      uint64_t* sig, uint64_t sv, int op, int pe) {          \
    rma_signal("shmem_ctx_" #N "_put_signal_nbi", ctx, d, s, n, sizeof(T), sig, sv, op, pe,  \
               true);                                                                        \
  }                                                                                          \
  void shmem_##N##_put_signal_nbi(T* d, const T* s, size_t n, uint64_t* sig, uint64_t sv,    \
                                  int op, int pe) {                                          \
    rma_signal("shmem_" #N "_put_signal_nbi", SHMEM_CTX_DEFAULT, d, s, n, sizeof(T), sig, sv, \
               op, pe, true);                                                                \
  }

extern "C" {
SHMEMI_RMA_TYPES(SHMEMI_DEF_RMA)
}
