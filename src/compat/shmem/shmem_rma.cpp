// RMA: the checks and the forwarding to the PGAS core behind every put/get entry point,
// and the sized (shmem_put32, shmem_putmem, ...) entry points.
#include "compat/shmem/shmem_rma.hpp"

#include "interlace/core/error.hpp"

namespace interlace::shmem {

namespace {

// The checks of a transfer of `nelems` elements; returns its length in bytes.
size_t checked_bytes(size_t nelems, size_t elem) {
  check_nelems(nelems);
  if (nelems > SIZE_MAX / elem)
    throw_error(Errc::invalid_count, "nelems " + std::to_string(nelems) + " of " +
                                         std::to_string(elem) + " bytes overflows size_t");
  return nelems * elem;
}

// A transfer of nothing moves no data, but its PE must still be one.
void check_pe(pgas::Pgas& p, int pe) {
  if (pe < 0 || pe >= p.n_pes())
    throw_error(Errc::invalid_rank, "pe " + std::to_string(pe) + " is out of range (PEs 0.." +
                                        std::to_string(p.n_pes() - 1) + ")");
}

}  // namespace

void rma(const char* routine, shmem_ctx_t ctx, Dir dir, void* dest, const void* source,
         size_t nelems, size_t elem, int pe, bool nbi) {
  call(routine, [&] {
    pgas::Pgas& p = pgas(routine);
    pgas::Domain& d = domain_of(p, ctx);
    int wpe = target_pe(ctx, pe);
    size_t bytes = checked_bytes(nelems, elem);
    if (bytes == 0) return check_pe(p, wpe);
    check_ptr(dest, "dest");
    check_ptr(source, "source");
    if (dir == Dir::put) p.put(d, dest, source, bytes, wpe, nbi);
    else p.get(d, dest, source, bytes, wpe, nbi);
  });
}

void rma_strided(const char* routine, shmem_ctx_t ctx, Dir dir, void* dest, const void* source,
                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem, int pe) {
  call(routine, [&] {
    pgas::Pgas& p = pgas(routine);
    pgas::Domain& d = domain_of(p, ctx);
    int wpe = target_pe(ctx, pe);
    checked_bytes(nelems, elem);
    if (nelems == 0) return check_pe(p, wpe);
    check_ptr(dest, "dest");
    check_ptr(source, "source");
    if (dir == Dir::put) p.iput(d, dest, source, dst, sst, nelems, elem, wpe);
    else p.iget(d, dest, source, dst, sst, nelems, elem, wpe);
  });
}

void rma_signal(const char* routine, shmem_ctx_t ctx, void* dest, const void* source,
                size_t nelems, size_t elem, uint64_t* sig_addr, uint64_t signal, int sig_op,
                int pe, bool nbi) {
  call(routine, [&] {
    pgas::Pgas& p = pgas(routine);
    pgas::Domain& d = domain_of(p, ctx);
    int wpe = target_pe(ctx, pe);
    size_t bytes = checked_bytes(nelems, elem);
    if (bytes) {
      check_ptr(dest, "dest");
      check_ptr(source, "source");
    }
    check_ptr(sig_addr, "sig_addr");
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
      throw_error(Errc::invalid_argument,
                  "sig_op " + std::to_string(sig_op) +
                      " is not SHMEM_SIGNAL_SET (0) or SHMEM_SIGNAL_ADD (1)");
    // With no data the signal is still updated, as the specification requires.
    p.put_signal(d, dest, source, bytes, sig_addr, signal, static_cast<pgas::SignalOp>(sig_op),
                 wpe, nbi);
  });
}

uint64_t signal_fetch(const uint64_t* sig_addr) {
  return call("shmem_signal_fetch", [&] {
    pgas::Pgas& p = pgas("shmem_signal_fetch");
    check_ptr(sig_addr, "sig_addr");
    return p.signal_fetch(sig_addr);
  });
}

}  // namespace interlace::shmem

using namespace interlace::shmem;

#define SHMEMI_ELEM_BYTES_mem 1
#define SHMEMI_ELEM_BYTES_8 1
#define SHMEMI_ELEM_BYTES_16 2
#define SHMEMI_ELEM_BYTES_32 4
#define SHMEMI_ELEM_BYTES_64 8
#define SHMEMI_ELEM_BYTES_128 16

#define SHMEMI_DEF_RMA_BLOCK(S)                                                               \
  void shmem_ctx_put##S(shmem_ctx_t ctx, void* d, const void* s, size_t n, int pe) {         \
    rma("shmem_ctx_put" #S, ctx, Dir::put, d, s, n, SHMEMI_ELEM_BYTES_##S, pe, false);       \
  }                                                                                          \
  void shmem_put##S(void* d, const void* s, size_t n, int pe) {                              \
    rma("shmem_put" #S, SHMEM_CTX_DEFAULT, Dir::put, d, s, n, SHMEMI_ELEM_BYTES_##S, pe,     \
        false);                                                                              \
  }                                                                                          \
  void shmem_ctx_get##S(shmem_ctx_t ctx, void* d, const void* s, size_t n, int pe) {         \
    rma("shmem_ctx_get" #S, ctx, Dir::get, d, s, n, SHMEMI_ELEM_BYTES_##S, pe, false);       \
  }                                                                                          \
  void shmem_get##S(void* d, const void* s, size_t n, int pe) {                              \
    rma("shmem_get" #S, SHMEM_CTX_DEFAULT, Dir::get, d, s, n, SHMEMI_ELEM_BYTES_##S, pe,     \
        false);                                                                              \
  }                                                                                          \
  void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void* d, const void* s, size_t n, int pe) {   \
    rma("shmem_ctx_put" #S "_nbi", ctx, Dir::put, d, s, n, SHMEMI_ELEM_BYTES_##S, pe, true); \
  }                                                                                          \
  void shmem_put##S##_nbi(void* d, const void* s, size_t n, int pe) {                        \
    rma("shmem_put" #S "_nbi", SHMEM_CTX_DEFAULT, Dir::put, d, s, n, SHMEMI_ELEM_BYTES_##S,  \
        pe, true);                                                                           \
  }                                                                                          \
  void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void* d, const void* s, size_t n, int pe) {   \
    rma("shmem_ctx_get" #S "_nbi", ctx, Dir::get, d, s, n, SHMEMI_ELEM_BYTES_##S, pe, true); \
  }                                                                                          \
  void shmem_get##S##_nbi(void* d, const void* s, size_t n, int pe) {                        \
    rma("shmem_get" #S "_nbi", SHMEM_CTX_DEFAULT, Dir::get, d, s, n, SHMEMI_ELEM_BYTES_##S,  \
        pe, true);                                                                           \
  }                                                                                          \
  void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void* d, const void* s, size_t n,          \
                                 uint64_t* sig, uint64_t sv, int op, int pe) {               \
    rma_signal("shmem_ctx_put" #S "_signal", ctx, d, s, n, SHMEMI_ELEM_BYTES_##S, sig, sv, op, \
               pe, false);                                                                   \
  }                                                                                          \
  void shmem_put##S##_signal(void* d, const void* s, size_t n, uint64_t* sig, uint64_t sv,   \
                             int op, int pe) {                                               \
    rma_signal("shmem_put" #S "_signal", SHMEM_CTX_DEFAULT, d, s, n, SHMEMI_ELEM_BYTES_##S,  \
               sig, sv, op, pe, false);                                                      \
  }                                                                                          \
  void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void* d, const void* s, size_t n,      \
                                     uint64_t* sig, uint64_t sv, int op, int pe) {           \
    rma_signal("shmem_ctx_put" #S "_signal_nbi", ctx, d, s, n, SHMEMI_ELEM_BYTES_##S, sig,   \
               sv, op, pe, true);                                                            \
  }                                                                                          \
  void shmem_put##S##_signal_nbi(void* d, const void* s, size_t n, uint64_t* sig,            \
                                 uint64_t sv, int op, int pe) {                              \
    rma_signal("shmem_put" #S "_signal_nbi", SHMEM_CTX_DEFAULT, d, s, n,                     \
               SHMEMI_ELEM_BYTES_##S, sig, sv, op, pe, true);                                \
  }

#define SHMEMI_DEF_RMA_STRIDED(S)                                                            \
  void shmem_ctx_iput##S(shmem_ctx_t ctx, void* d, const void* s, ptrdiff_t dst,            \
                         ptrdiff_t sst, size_t n, int pe) {                                 \
    rma_strided("shmem_ctx_iput" #S, ctx, Dir::put, d, s, dst, sst, n, SHMEMI_ELEM_BYTES_##S, \
                pe);                                                                        \
  }                                                                                         \
  void shmem_iput##S(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,        \
                     int pe) {                                                              \
    rma_strided("shmem_iput" #S, SHMEM_CTX_DEFAULT, Dir::put, d, s, dst, sst, n,            \
                SHMEMI_ELEM_BYTES_##S, pe);                                                 \
  }                                                                                         \
  void shmem_ctx_iget##S(shmem_ctx_t ctx, void* d, const void* s, ptrdiff_t dst,            \
                         ptrdiff_t sst, size_t n, int pe) {                                 \
    rma_strided("shmem_ctx_iget" #S, ctx, Dir::get, d, s, dst, sst, n, SHMEMI_ELEM_BYTES_##S, \
                pe);                                                                        \
  }                                                                                         \
  void shmem_iget##S(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n,        \
                     int pe) {                                                              \
    rma_strided("shmem_iget" #S, SHMEM_CTX_DEFAULT, Dir::get, d, s, dst, sst, n,            \
                SHMEMI_ELEM_BYTES_##S, pe);                                                 \
  }

extern "C" {
SHMEMI_SIZES(SHMEMI_DEF_RMA_BLOCK)
SHMEMI_SIZES(SHMEMI_DEF_RMA_STRIDED)
SHMEMI_DEF_RMA_BLOCK(mem)

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) { return signal_fetch(sig_addr); }
}  // extern "C"
