/* The OpenSHMEM 1.5 C API of interlace (docs/shmem.md): existing OpenSHMEM programs
 * build against this header and libinterlace unchanged. Teams and collectives are
 * declared by interlace/shmem_teams.h, included below.
 *
 * The per-type routines are declared from the type tables below (SHMEMI_*_TYPES), the
 * same tables src/compat/shmem/ defines them from, so a declaration and its exported
 * symbol cannot drift apart. Names follow the specification exactly:
 * shmem_<TYPENAME>_<op> and shmem_ctx_<TYPENAME>_<op>. */
#ifndef INTERLACE_SHMEM_H
#define INTERLACE_SHMEM_H

#include <stddef.h>
#include <stdint.h>

/* ---- library constants ------------------------------------------------------------ */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "interlace"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Values of interlace::pgas::Cmp and pgas::SignalOp. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* The active-set collectives run on interlace's collective engine, which keeps its own
 * state: pSync and pWrk are accepted (and must still be symmetric, as the specification
 * requires) but need no particular size. The sizes keep the arrays programs declare
 * small. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 8
#define SHMEM_BCAST_SYNC_SIZE 8
#define SHMEM_REDUCE_SYNC_SIZE 8
#define SHMEM_BARRIER_SYNC_SIZE 8
#define SHMEM_COLLECT_SYNC_SIZE 8
#define SHMEM_ALLTOALL_SYNC_SIZE 8
#define SHMEM_ALLTOALLS_SYNC_SIZE 8
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 8

/* Deprecated spellings (OpenSHMEM 1.3 and before). */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#ifdef __cplusplus
extern "C" {
#endif

/* A communication context (one interlace::pgas::Domain). A pointer to a struct of its
 * own, not void *, so that C11 _Generic tells a context argument from a data pointer. */
typedef struct shmemi_ctx *shmem_ctx_t;
extern const shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

#ifdef __cplusplus
}
#endif

#include <interlace/shmem_teams.h>

/* ---- type tables (X(TYPE, TYPENAME)) ---------------------------------------------- */
/* The standard RMA types: one table, shared with the collectives' header above. */
#define SHMEMI_RMA_TYPES(X) INTERLACE_SHMEM_RMA_TYPES(X)
#define SHMEMI_AMO_TYPES(X)                                                          \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)             \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)         \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)          \
  X(ptrdiff_t, ptrdiff)
#define SHMEMI_EXT_AMO_TYPES(X) SHMEMI_AMO_TYPES(X) X(float, float) X(double, double)
#define SHMEMI_BITWISE_AMO_TYPES(X)                                                  \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
#define SHMEMI_SYNC_TYPES(X)                                                         \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)                   \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)            \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)               \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* Deprecated AMO names (shmem_int_fadd, ...) and deprecated wait (shmem_int_wait). */
#define SHMEMI_DEP_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_DEP_EXT_AMO_TYPES(X) SHMEMI_DEP_AMO_TYPES(X) X(float, float) X(double, double)
#define SHMEMI_DEP_WAIT_TYPES(X) X(short, short) SHMEMI_DEP_AMO_TYPES(X)
/* Sizes of shmem_putSIZE and friends, in bits. */
#define SHMEMI_SIZES(X) X(8) X(16) X(32) X(64) X(128)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- setup, query, exit ------------------------------------------------------------ */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
int shmem_my_pe(void);
int shmem_n_pes(void);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_global_exit(int status);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
/* deprecated */
void start_pes(int npes);
/* deprecated cache management (no-ops: interlace keeps no caches to manage) */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);
int _my_pe(void);
int _num_pes(void);

/* ---- symmetric memory -------------------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);
/* deprecated */
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ---- contexts and ordering ----------------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
void shmem_fence(void);
void shmem_quiet(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- RMA --------------------------------------------------------------------------- */
#define SHMEMI_DECL_RMA(T, N)                                                                \
  void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                    \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
  void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                    \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
  void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                               int pe);                                                     \
  void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,    \
                               int pe);                                                     \
  void shmem_##N##_p(T *dest, T value, int pe);                                             \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                        \
  T shmem_##N##_g(const T *source, int pe);                                                 \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                            \
  void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                        size_t nelems, int pe);                                             \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                            ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,             \
                        size_t nelems, int pe);                                             \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,       \
                            ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                              uint64_t signal, int sig_op, int pe);                         \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,                  \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,            \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                      int sig_op, int pe);
SHMEMI_RMA_TYPES(SHMEMI_DECL_RMA)

/* shmem_putSIZE (SIZE in bits; nelems counts SIZE-bit elements) and shmem_putmem (bytes). */
#define SHMEMI_DECL_RMA_BLOCK(S)                                                             \
  void shmem_put##S(void *dest, const void *source, size_t nelems, int pe);                 \
  void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,     \
                        int pe);                                                            \
  void shmem_get##S(void *dest, const void *source, size_t nelems, int pe);                 \
  void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,     \
                        int pe);                                                            \
  void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe);           \
  void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,              \
                              size_t nelems, int pe);                                       \
  void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe);           \
  void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source,              \
                              size_t nelems, int pe);                                       \
  void shmem_put##S##_signal(void *dest, const void *source, size_t nelems,                 \
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
  void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source,           \
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                                 int sig_op, int pe);                                       \
  void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems,             \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
  void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,       \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                     int sig_op, int pe);
#define SHMEMI_DECL_RMA_STRIDED(S)                                                           \
  void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                     size_t nelems, int pe);                                                \
  void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,    \
                         ptrdiff_t sst, size_t nelems, int pe);                             \
  void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                     size_t nelems, int pe);                                                \
  void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,    \
                         ptrdiff_t sst, size_t nelems, int pe);
SHMEMI_SIZES(SHMEMI_DECL_RMA_BLOCK)
SHMEMI_SIZES(SHMEMI_DECL_RMA_STRIDED)
SHMEMI_DECL_RMA_BLOCK(mem)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomic memory operations ------------------------------------------------------- */
#define SHMEMI_DECL_AMO_EXT(T, N)                                                            \
  T shmem_##N##_atomic_fetch(const T *source, int pe);                                      \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                 \
  void shmem_##N##_atomic_set(T *dest, T value, int pe);                                    \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);               \
  T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                      \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                 \
  void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                     \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
  void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                     \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEMI_DECL_AMO_STD(T, N)                                                            \
  T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                      \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe); \
  T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                          \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                     \
  void shmem_##N##_atomic_inc(T *dest, int pe);                                             \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                        \
  T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                 \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);            \
  void shmem_##N##_atomic_add(T *dest, T value, int pe);                                    \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);               \
  void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);     \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,  \
                                               T value, int pe);                            \
  void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                         \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);    \
  void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                            int pe);
#define SHMEMI_DECL_AMO_BIT_OP(T, N, OP)                                                     \
  T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);           \
  void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                   \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);              \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);             \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                               int pe);
#define SHMEMI_DECL_AMO_BIT(T, N) \
  SHMEMI_DECL_AMO_BIT_OP(T, N, and) SHMEMI_DECL_AMO_BIT_OP(T, N, or) \
  SHMEMI_DECL_AMO_BIT_OP(T, N, xor)
SHMEMI_EXT_AMO_TYPES(SHMEMI_DECL_AMO_EXT)
SHMEMI_AMO_TYPES(SHMEMI_DECL_AMO_STD)
SHMEMI_BITWISE_AMO_TYPES(SHMEMI_DECL_AMO_BIT)

/* deprecated (OpenSHMEM 1.3 names) */
#define SHMEMI_DECL_AMO_DEP_EXT(T, N)                \
  T shmem_##N##_fetch(const T *source, int pe);     \
  void shmem_##N##_set(T *dest, T value, int pe);   \
  T shmem_##N##_swap(T *dest, T value, int pe);
#define SHMEMI_DECL_AMO_DEP(T, N)                              \
  T shmem_##N##_cswap(T *dest, T cond, T value, int pe);      \
  T shmem_##N##_finc(T *dest, int pe);                        \
  void shmem_##N##_inc(T *dest, int pe);                      \
  T shmem_##N##_fadd(T *dest, T value, int pe);               \
  void shmem_##N##_add(T *dest, T value, int pe);
SHMEMI_DEP_EXT_AMO_TYPES(SHMEMI_DECL_AMO_DEP_EXT)
SHMEMI_DEP_AMO_TYPES(SHMEMI_DECL_AMO_DEP)
long shmem_swap(long *dest, long value, int pe);

/* ---- point-to-point synchronization ------------------------------------------------- */
#define SHMEMI_DECL_SYNC(T, N)                                                               \
  void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                               \
  void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,      \
                                  T cmp_value);                                             \
  size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,    \
                                    T cmp_value);                                           \
  size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,              \
                                     const int *status, int cmp, T cmp_value);              \
  void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,        \
                                         int cmp, T *cmp_values);                           \
  size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,      \
                                           int cmp, T *cmp_values);                         \
  size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,       \
                                            const int *status, int cmp, T *cmp_values);     \
  int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                      \
  int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,             \
                           T cmp_value);                                                    \
  size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                              T cmp_value);                                                 \
  size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                               int cmp, T cmp_value);                                       \
  int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,      \
                                  T *cmp_values);                                           \
  size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                     T *cmp_values);                                        \
  size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                      const int *status, int cmp, T *cmp_values);
SHMEMI_SYNC_TYPES(SHMEMI_DECL_SYNC)
/* deprecated */
#define SHMEMI_DECL_WAIT_DEP(T, N) void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEMI_DEP_WAIT_TYPES(SHMEMI_DECL_WAIT_DEP)
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---- distributed locks --------------------------------------------------------------- */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

#ifdef __cplusplus
}
#endif

/* ---- C11 type-generic routines ---------------------------------------------------------
 * shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source, nelems, pe): the
 * first argument picks the context form (its type is shmem_ctx_t) and the data pointer
 * picks the type. Only the basic C types are listed: int32_t, size_t, ... are typedefs
 * of them and select the same routine. An argument of another type selects the integer
 * 0, so the call does not compile ("called object is not a function"). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

#define SHMEMI_ARG1(a, ...) a
#define SHMEMI_ARG2(a, b, ...) b

/* association lists: q = qualifier of the pointed-to type, pre/post around TYPENAME */
#define SHMEMI_L_RMA(q, pre, post)                                                     \
  q float *: pre##float##post, q double *: pre##double##post,                           \
  q long double *: pre##longdouble##post, q char *: pre##char##post,                    \
  q signed char *: pre##schar##post, q short *: pre##short##post,                       \
  q int *: pre##int##post, q long *: pre##long##post, q long long *: pre##longlong##post, \
  q unsigned char *: pre##uchar##post, q unsigned short *: pre##ushort##post,           \
  q unsigned int *: pre##uint##post, q unsigned long *: pre##ulong##post,               \
  q unsigned long long *: pre##ulonglong##post,
#define SHMEMI_L_AMO(q, pre, post)                                                     \
  q int *: pre##int##post, q long *: pre##long##post, q long long *: pre##longlong##post, \
  q unsigned int *: pre##uint##post, q unsigned long *: pre##ulong##post,               \
  q unsigned long long *: pre##ulonglong##post,
#define SHMEMI_L_EXT(q, pre, post) \
  SHMEMI_L_AMO(q, pre, post) q float *: pre##float##post, q double *: pre##double##post,
#define SHMEMI_L_BIT(q, pre, post)                                                     \
  q unsigned int *: pre##uint##post, q unsigned long *: pre##ulong##post,               \
  q unsigned long long *: pre##ulonglong##post, q int32_t *: pre##int32##post,          \
  q int64_t *: pre##int64##post,
#define SHMEMI_L_SYNC(q, pre, post)                                                    \
  q short *: pre##short##post, q unsigned short *: pre##ushort##post, SHMEMI_L_AMO(q, pre, post)
#define SHMEMI_L_DEP(q, pre, post) \
  q int *: pre##int##post, q long *: pre##long##post, q long long *: pre##longlong##post,
#define SHMEMI_L_DEP_EXT(q, pre, post) \
  SHMEMI_L_DEP(q, pre, post) q float *: pre##float##post, q double *: pre##double##post,

/* with an optional leading context */
#define SHMEMI_SEL(L, op, ...)                                                               \
  _Generic(SHMEMI_ARG1(__VA_ARGS__, 0),                                                     \
           shmem_ctx_t: _Generic(SHMEMI_ARG2(__VA_ARGS__, 0, 0), L(, shmem_ctx_, op) default: 0), \
           default: _Generic(SHMEMI_ARG1(__VA_ARGS__, 0), L(, shmem_, op) default: 0))(__VA_ARGS__)
/* the same, for routines whose data pointer is const (source of g, atomic fetch) */
#define SHMEMI_SELC(L, op, ...)                                                             \
  _Generic(SHMEMI_ARG1(__VA_ARGS__, 0),                                                     \
           shmem_ctx_t: _Generic(SHMEMI_ARG2(__VA_ARGS__, 0, 0),                            \
                                 L(, shmem_ctx_, op) L(const, shmem_ctx_, op) default: 0),  \
           default: _Generic(SHMEMI_ARG1(__VA_ARGS__, 0),                                   \
                             L(, shmem_, op) L(const, shmem_, op) default: 0))(__VA_ARGS__)
/* routines without a context form */
#define SHMEMI_SEL0(L, op, ...) \
  _Generic(SHMEMI_ARG1(__VA_ARGS__, 0), L(, shmem_, op) default: 0)(__VA_ARGS__)
#define SHMEMI_SEL0C(L, op, ...) \
  _Generic(SHMEMI_ARG1(__VA_ARGS__, 0), L(, shmem_, op) L(const, shmem_, op) default: 0)(__VA_ARGS__)

#define shmem_put(...) SHMEMI_SEL(SHMEMI_L_RMA, _put, __VA_ARGS__)
#define shmem_get(...) SHMEMI_SEL(SHMEMI_L_RMA, _get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEMI_SEL(SHMEMI_L_RMA, _put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEMI_SEL(SHMEMI_L_RMA, _get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMEMI_SEL(SHMEMI_L_RMA, _p, __VA_ARGS__)
#define shmem_g(...) SHMEMI_SELC(SHMEMI_L_RMA, _g, __VA_ARGS__)
#define shmem_iput(...) SHMEMI_SEL(SHMEMI_L_RMA, _iput, __VA_ARGS__)
#define shmem_iget(...) SHMEMI_SEL(SHMEMI_L_RMA, _iget, __VA_ARGS__)
#define shmem_put_signal(...) SHMEMI_SEL(SHMEMI_L_RMA, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEMI_SEL(SHMEMI_L_RMA, _put_signal_nbi, __VA_ARGS__)

#define shmem_atomic_fetch(...) SHMEMI_SELC(SHMEMI_L_EXT, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEMI_SEL(SHMEMI_L_EXT, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEMI_SEL(SHMEMI_L_EXT, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMEMI_SEL(SHMEMI_L_EXT, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEMI_SEL(SHMEMI_L_EXT, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
  SHMEMI_SEL(SHMEMI_L_AMO, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEMI_SEL(SHMEMI_L_AMO, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEMI_SEL(SHMEMI_L_BIT, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* deprecated generic AMO names */
#define shmem_fetch(...) SHMEMI_SEL0C(SHMEMI_L_DEP_EXT, _fetch, __VA_ARGS__)
#define shmem_set(...) SHMEMI_SEL0(SHMEMI_L_DEP_EXT, _set, __VA_ARGS__)
#define shmem_swap(...) SHMEMI_SEL0(SHMEMI_L_DEP_EXT, _swap, __VA_ARGS__)
#define shmem_cswap(...) SHMEMI_SEL0(SHMEMI_L_DEP, _cswap, __VA_ARGS__)
#define shmem_finc(...) SHMEMI_SEL0(SHMEMI_L_DEP, _finc, __VA_ARGS__)
#define shmem_inc(...) SHMEMI_SEL0(SHMEMI_L_DEP, _inc, __VA_ARGS__)
#define shmem_fadd(...) SHMEMI_SEL0(SHMEMI_L_DEP, _fadd, __VA_ARGS__)
#define shmem_add(...) SHMEMI_SEL0(SHMEMI_L_DEP, _add, __VA_ARGS__)

#define shmem_wait_until(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) \
  SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) \
  SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) \
  SHMEMI_SEL0(SHMEMI_L_SYNC, _wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test, __VA_ARGS__)
#define shmem_test_all(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_all, __VA_ARGS__)
#define shmem_test_any(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_any, __VA_ARGS__)
#define shmem_test_some(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) SHMEMI_SEL0(SHMEMI_L_SYNC, _test_some_vector, __VA_ARGS__)

#endif /* C11 */

/* ---- C++ overloads of the same generic names ------------------------------------------
 * Plain overloads over the basic types (int32_t, size_t, ... are typedefs of them).
 * shmem_wait_until(long *, ...) and shmem_swap(long *, ...) are the C functions
 * declared above; the overloads add the other types. */
#ifdef __cplusplus
#define SHMEMI_BASE_RMA_TYPES(X)                                                     \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)         \
  X(signed char, schar) X(short, short) X(int, int) X(long, long)                    \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)           \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_BASE_AMO_TYPES(X)                                                     \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)             \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_BASE_EXT_TYPES(X) SHMEMI_BASE_AMO_TYPES(X) X(float, float) X(double, double)
#define SHMEMI_BASE_BIT_TYPES(X)                                                     \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)     \
  X(int32_t, int32) X(int64_t, int64)
#define SHMEMI_BASE_SYNC_TYPES(X) X(short, short) X(unsigned short, ushort) SHMEMI_BASE_AMO_TYPES(X)

/* an overload with and without a context: R name(P...) forwarding to shmem_[ctx_]N_op */
#define SHMEMI_CXX2(R, name, N, op, params, args)                                        \
  inline R name params { return shmem_##N##_##op args; }                                 \
  inline R name(shmem_ctx_t ctx, SHMEMI_CXX_UNPAREN params) {                            \
    return shmem_ctx_##N##_##op(ctx, SHMEMI_CXX_UNPAREN args);                           \
  }
#define SHMEMI_CXX1(R, name, N, op, params, args) \
  inline R name params { return shmem_##N##_##op args; }
#define SHMEMI_CXX_UNPAREN(...) __VA_ARGS__

#define SHMEMI_CXX_RMA(T, N)                                                                 \
  SHMEMI_CXX2(void, shmem_put, N, put, (T *d, const T *s, size_t n, int pe), (d, s, n, pe)) \
  SHMEMI_CXX2(void, shmem_get, N, get, (T *d, const T *s, size_t n, int pe), (d, s, n, pe)) \
  SHMEMI_CXX2(void, shmem_put_nbi, N, put_nbi, (T *d, const T *s, size_t n, int pe),        \
              (d, s, n, pe))                                                                 \
  SHMEMI_CXX2(void, shmem_get_nbi, N, get_nbi, (T *d, const T *s, size_t n, int pe),        \
              (d, s, n, pe))                                                                 \
  SHMEMI_CXX2(void, shmem_p, N, p, (T *d, T v, int pe), (d, v, pe))                          \
  SHMEMI_CXX2(T, shmem_g, N, g, (const T *s, int pe), (s, pe))                               \
  SHMEMI_CXX2(void, shmem_iput, N, iput,                                                    \
              (T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe),           \
              (d, s, dst, sst, n, pe))                                                      \
  SHMEMI_CXX2(void, shmem_iget, N, iget,                                                    \
              (T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe),           \
              (d, s, dst, sst, n, pe))                                                      \
  SHMEMI_CXX2(void, shmem_put_signal, N, put_signal,                                        \
              (T *d, const T *s, size_t n, uint64_t *sig, uint64_t sv, int op, int pe),     \
              (d, s, n, sig, sv, op, pe))                                                   \
  SHMEMI_CXX2(void, shmem_put_signal_nbi, N, put_signal_nbi,                                \
              (T *d, const T *s, size_t n, uint64_t *sig, uint64_t sv, int op, int pe),     \
              (d, s, n, sig, sv, op, pe))
#define SHMEMI_CXX_EXT(T, N)                                                                 \
  SHMEMI_CXX2(T, shmem_atomic_fetch, N, atomic_fetch, (const T *s, int pe), (s, pe))         \
  SHMEMI_CXX2(void, shmem_atomic_set, N, atomic_set, (T *d, T v, int pe), (d, v, pe))        \
  SHMEMI_CXX2(T, shmem_atomic_swap, N, atomic_swap, (T *d, T v, int pe), (d, v, pe))         \
  SHMEMI_CXX2(void, shmem_atomic_fetch_nbi, N, atomic_fetch_nbi, (T *f, const T *s, int pe), \
              (f, s, pe))                                                                    \
  SHMEMI_CXX2(void, shmem_atomic_swap_nbi, N, atomic_swap_nbi, (T *f, T *d, T v, int pe),    \
              (f, d, v, pe))
#define SHMEMI_CXX_AMO(T, N)                                                                 \
  SHMEMI_CXX2(T, shmem_atomic_compare_swap, N, atomic_compare_swap, (T *d, T c, T v, int pe), \
              (d, c, v, pe))                                                                 \
  SHMEMI_CXX2(T, shmem_atomic_fetch_inc, N, atomic_fetch_inc, (T *d, int pe), (d, pe))       \
  SHMEMI_CXX2(void, shmem_atomic_inc, N, atomic_inc, (T *d, int pe), (d, pe))                \
  SHMEMI_CXX2(T, shmem_atomic_fetch_add, N, atomic_fetch_add, (T *d, T v, int pe),           \
              (d, v, pe))                                                                    \
  SHMEMI_CXX2(void, shmem_atomic_add, N, atomic_add, (T *d, T v, int pe), (d, v, pe))        \
  SHMEMI_CXX2(void, shmem_atomic_compare_swap_nbi, N, atomic_compare_swap_nbi,              \
              (T *f, T *d, T c, T v, int pe), (f, d, c, v, pe))                              \
  SHMEMI_CXX2(void, shmem_atomic_fetch_inc_nbi, N, atomic_fetch_inc_nbi, (T *f, T *d, int pe), \
              (f, d, pe))                                                                    \
  SHMEMI_CXX2(void, shmem_atomic_fetch_add_nbi, N, atomic_fetch_add_nbi,                    \
              (T *f, T *d, T v, int pe), (f, d, v, pe))
#define SHMEMI_CXX_BIT_OP(T, N, OP)                                                          \
  SHMEMI_CXX2(T, shmem_atomic_fetch_##OP, N, atomic_fetch_##OP, (T *d, T v, int pe),         \
              (d, v, pe))                                                                    \
  SHMEMI_CXX2(void, shmem_atomic_##OP, N, atomic_##OP, (T *d, T v, int pe), (d, v, pe))      \
  SHMEMI_CXX2(void, shmem_atomic_fetch_##OP##_nbi, N, atomic_fetch_##OP##_nbi,              \
              (T *f, T *d, T v, int pe), (f, d, v, pe))
#define SHMEMI_CXX_BIT(T, N) \
  SHMEMI_CXX_BIT_OP(T, N, and) SHMEMI_CXX_BIT_OP(T, N, or) SHMEMI_CXX_BIT_OP(T, N, xor)
#define SHMEMI_CXX_SYNC(T, N)                                                                \
  SHMEMI_CXX1(int, shmem_test, N, test, (T *v, int c, T x), (v, c, x))                       \
  SHMEMI_CXX1(void, shmem_wait_until_all, N, wait_until_all,                                \
              (T *v, size_t n, const int *st, int c, T x), (v, n, st, c, x))                 \
  SHMEMI_CXX1(size_t, shmem_wait_until_any, N, wait_until_any,                              \
              (T *v, size_t n, const int *st, int c, T x), (v, n, st, c, x))                 \
  SHMEMI_CXX1(size_t, shmem_wait_until_some, N, wait_until_some,                            \
              (T *v, size_t n, size_t *ix, const int *st, int c, T x), (v, n, ix, st, c, x)) \
  SHMEMI_CXX1(void, shmem_wait_until_all_vector, N, wait_until_all_vector,                  \
              (T *v, size_t n, const int *st, int c, T *x), (v, n, st, c, x))                \
  SHMEMI_CXX1(size_t, shmem_wait_until_any_vector, N, wait_until_any_vector,                \
              (T *v, size_t n, const int *st, int c, T *x), (v, n, st, c, x))                \
  SHMEMI_CXX1(size_t, shmem_wait_until_some_vector, N, wait_until_some_vector,              \
              (T *v, size_t n, size_t *ix, const int *st, int c, T *x), (v, n, ix, st, c, x)) \
  SHMEMI_CXX1(int, shmem_test_all, N, test_all,                                             \
              (T *v, size_t n, const int *st, int c, T x), (v, n, st, c, x))                 \
  SHMEMI_CXX1(size_t, shmem_test_any, N, test_any,                                          \
              (T *v, size_t n, const int *st, int c, T x), (v, n, st, c, x))                 \
  SHMEMI_CXX1(size_t, shmem_test_some, N, test_some,                                        \
              (T *v, size_t n, size_t *ix, const int *st, int c, T x), (v, n, ix, st, c, x)) \
  SHMEMI_CXX1(int, shmem_test_all_vector, N, test_all_vector,                               \
              (T *v, size_t n, const int *st, int c, T *x), (v, n, st, c, x))                \
  SHMEMI_CXX1(size_t, shmem_test_any_vector, N, test_any_vector,                            \
              (T *v, size_t n, const int *st, int c, T *x), (v, n, st, c, x))                \
  SHMEMI_CXX1(size_t, shmem_test_some_vector, N, test_some_vector,                          \
              (T *v, size_t n, size_t *ix, const int *st, int c, T *x), (v, n, ix, st, c, x))
/* shmem_long_wait_until is the C function shmem_wait_until(long *, int, long) */
#define SHMEMI_CXX_WAIT_UNTIL(T, N) \
  SHMEMI_CXX1(void, shmem_wait_until, N, wait_until, (T *v, int c, T x), (v, c, x))

SHMEMI_BASE_RMA_TYPES(SHMEMI_CXX_RMA)
SHMEMI_BASE_EXT_TYPES(SHMEMI_CXX_EXT)
SHMEMI_BASE_AMO_TYPES(SHMEMI_CXX_AMO)
SHMEMI_BASE_BIT_TYPES(SHMEMI_CXX_BIT)
SHMEMI_BASE_SYNC_TYPES(SHMEMI_CXX_SYNC)
SHMEMI_CXX_WAIT_UNTIL(short, short)
SHMEMI_CXX_WAIT_UNTIL(unsigned short, ushort)
SHMEMI_CXX_WAIT_UNTIL(int, int)
SHMEMI_CXX_WAIT_UNTIL(long long, longlong)
SHMEMI_CXX_WAIT_UNTIL(unsigned int, uint)
SHMEMI_CXX_WAIT_UNTIL(unsigned long, ulong)
SHMEMI_CXX_WAIT_UNTIL(unsigned long long, ulonglong)
#endif /* __cplusplus */

#endif /* INTERLACE_SHMEM_H */
