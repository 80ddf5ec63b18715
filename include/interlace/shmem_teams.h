/* OpenSHMEM 1.5 teams and collectives of interlace (docs/shmem-collectives.md).
 *
 * shmem.h includes this file once shmem_ctx_t and its constants exist. Included on
 * its own, it includes shmem.h first; shmem.h's include of this file then finds the
 * guard below set and does nothing, and the declarations follow here.
 *
 * Every routine is a real exported symbol. The type-generic names of the
 * specification (shmem_broadcast, shmem_sum_reduce, ...) are C11 _Generic macros in
 * C and inline overloads in C++; shmem_sync(team) and the deprecated
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync) share one name: the symbol is
 * the active-set form (as in OpenSHMEM 1.4), the one-argument call is shmem_team_sync. */
#ifndef INTERLACE_SHMEM_TEAMS_H
#define INTERLACE_SHMEM_TEAMS_H

#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define INTERLACE_SHMEM_COMPLEXF __complex__ float
#define INTERLACE_SHMEM_COMPLEXD __complex__ double
#else
#define INTERLACE_SHMEM_COMPLEXF float _Complex
#define INTERLACE_SHMEM_COMPLEXD double _Complex
#endif

/* A team handle: an opaque number (never a pointer to anything). */
typedef struct interlace_shmem_team_s* shmem_team_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)2)

typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Work-array sizes and the pSync value of the deprecated active-set collectives.
 * interlace never reads or writes pSync and pWrk (the collective engine keeps its own
 * state), so any array of these sizes is fine. */
#ifndef SHMEM_SYNC_VALUE
#define SHMEM_SYNC_VALUE (-1L)
#endif
#ifndef SHMEM_SYNC_SIZE
#define SHMEM_SYNC_SIZE 4
#endif
#ifndef SHMEM_BARRIER_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE 4
#endif
#ifndef SHMEM_BCAST_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE 4
#endif
#ifndef SHMEM_COLLECT_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE 4
#endif
#ifndef SHMEM_REDUCE_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE 4
#endif
#ifndef SHMEM_ALLTOALL_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE 4
#endif
#ifndef SHMEM_ALLTOALLS_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE 4
#endif
#ifndef SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#endif
#ifndef _SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#endif

/* ---- type tables: X(TYPE, TYPENAME) -------------------------------------------- */
/* Standard RMA types (broadcast, collect, fcollect, alltoall, alltoalls). */
#define INTERLACE_SHMEM_RMA_TYPES(X)                                                    \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)            \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)              \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)              \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)               \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)           \
  X(ptrdiff_t, ptrdiff)
/* Team reductions: AND/OR/XOR types; MAX/MIN adds the rest; SUM/PROD adds complex. */
#define INTERLACE_SHMEM_BITWISE_TYPES(X)                                                \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)              \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)              \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)               \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define INTERLACE_SHMEM_COMPARE_TYPES(X)                                                \
  INTERLACE_SHMEM_BITWISE_TYPES(X) X(char, char) X(signed char, schar) X(short, short)  \
  X(int, int) X(long, long) X(long long, longlong) X(ptrdiff_t, ptrdiff) X(float, float) \
  X(double, double) X(long double, longdouble)
#define INTERLACE_SHMEM_ARITH_TYPES(X)                                                  \
  INTERLACE_SHMEM_COMPARE_TYPES(X) X(INTERLACE_SHMEM_COMPLEXD, complexd)                \
  X(INTERLACE_SHMEM_COMPLEXF, complexf)
/* Active-set (OpenSHMEM 1.4) reductions *_to_all. */
#define INTERLACE_SHMEM_TOALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define INTERLACE_SHMEM_TOALL_COMPARE_TYPES(X)                                          \
  INTERLACE_SHMEM_TOALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define INTERLACE_SHMEM_TOALL_ARITH_TYPES(X)                                            \
  INTERLACE_SHMEM_TOALL_COMPARE_TYPES(X) X(INTERLACE_SHMEM_COMPLEXD, complexd)          \
  X(INTERLACE_SHMEM_COMPLEXF, complexf)

/* ---- teams ----------------------------------------------------------------------- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask,
                             shmem_team_t* new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team);

/* ---- synchronization ------------------------------------------------------------- */
int shmem_team_sync(shmem_team_t team);
void shmem_sync_all(void);
void shmem_barrier_all(void);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync);

/* ---- team collectives ------------------------------------------------------------ */
#define INTERLACE_SHMEM_DECL_MOVE(T, N)                                                 \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, \
                            int PE_root);                                               \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems);  \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems); \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems); \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, \
                            ptrdiff_t sst, size_t nelems);
INTERLACE_SHMEM_RMA_TYPES(INTERLACE_SHMEM_DECL_MOVE)
int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define INTERLACE_SHMEM_DECL_REDUCE(T, N, OP)                                           \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce);
#define INTERLACE_SHMEM_DECL_BITWISE(T, N)                                              \
  INTERLACE_SHMEM_DECL_REDUCE(T, N, and) INTERLACE_SHMEM_DECL_REDUCE(T, N, or)          \
  INTERLACE_SHMEM_DECL_REDUCE(T, N, xor)
#define INTERLACE_SHMEM_DECL_COMPARE(T, N)                                              \
  INTERLACE_SHMEM_DECL_REDUCE(T, N, max) INTERLACE_SHMEM_DECL_REDUCE(T, N, min)
#define INTERLACE_SHMEM_DECL_ARITH(T, N)                                                \
  INTERLACE_SHMEM_DECL_REDUCE(T, N, sum) INTERLACE_SHMEM_DECL_REDUCE(T, N, prod)
INTERLACE_SHMEM_BITWISE_TYPES(INTERLACE_SHMEM_DECL_BITWISE)
INTERLACE_SHMEM_COMPARE_TYPES(INTERLACE_SHMEM_DECL_COMPARE)
INTERLACE_SHMEM_ARITH_TYPES(INTERLACE_SHMEM_DECL_ARITH)

/* ---- deprecated active-set collectives (pSync and pWrk are not used) ------------- */
#define INTERLACE_SHMEM_DECL_SIZED(B)                                                   \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root,   \
                          int PE_start, int logPE_stride, int PE_size, long* pSync);    \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start,    \
                        int logPE_stride, int PE_size, long* pSync);                    \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start,   \
                         int logPE_stride, int PE_size, long* pSync);                   \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start,   \
                         int logPE_stride, int PE_size, long* pSync);                   \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, \
                          size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                          long* pSync);
INTERLACE_SHMEM_DECL_SIZED(32)
INTERLACE_SHMEM_DECL_SIZED(64)

#define INTERLACE_SHMEM_DECL_TOALL(T, N, OP)                                            \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start,   \
                                 int logPE_stride, int PE_size, T* pWrk, long* pSync);
#define INTERLACE_SHMEM_DECL_TOALL_BITWISE(T, N)                                        \
  INTERLACE_SHMEM_DECL_TOALL(T, N, and) INTERLACE_SHMEM_DECL_TOALL(T, N, or)            \
  INTERLACE_SHMEM_DECL_TOALL(T, N, xor)
#define INTERLACE_SHMEM_DECL_TOALL_COMPARE(T, N)                                        \
  INTERLACE_SHMEM_DECL_TOALL(T, N, max) INTERLACE_SHMEM_DECL_TOALL(T, N, min)
#define INTERLACE_SHMEM_DECL_TOALL_ARITH(T, N)                                          \
  INTERLACE_SHMEM_DECL_TOALL(T, N, sum) INTERLACE_SHMEM_DECL_TOALL(T, N, prod)
INTERLACE_SHMEM_TOALL_BITWISE_TYPES(INTERLACE_SHMEM_DECL_TOALL_BITWISE)
INTERLACE_SHMEM_TOALL_COMPARE_TYPES(INTERLACE_SHMEM_DECL_TOALL_COMPARE)
INTERLACE_SHMEM_TOALL_ARITH_TYPES(INTERLACE_SHMEM_DECL_TOALL_ARITH)

#ifdef __cplusplus
}  /* extern "C" */
#endif

/* ---- type-generic forms --------------------------------------------------------- */
/* shmem_sync(team) in OpenSHMEM 1.5 and shmem_sync(PE_start, logPE_stride, PE_size,
 * pSync) of 1.4: chosen by the number of arguments. */
#define INTERLACE_SHMEM_SYNC_PICK(a1, a2, a3, a4, name, ...) name
#ifndef __cplusplus
#define shmem_sync(...) \
  INTERLACE_SHMEM_SYNC_PICK(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, 0)(__VA_ARGS__)
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define INTERLACE_SHMEM_GEN_INTS(p, OP)                                                  \
  unsigned char: shmem_uchar_##OP, unsigned short: shmem_ushort_##OP,                   \
  unsigned int: shmem_uint_##OP, unsigned long: shmem_ulong_##OP,                       \
  unsigned long long: shmem_ulonglong_##OP
#define INTERLACE_SHMEM_GEN_COMPARE(dest, OP)                                            \
  _Generic(*(dest), INTERLACE_SHMEM_GEN_INTS(dest, OP), char: shmem_char_##OP,           \
           signed char: shmem_schar_##OP, short: shmem_short_##OP, int: shmem_int_##OP,  \
           long: shmem_long_##OP, long long: shmem_longlong_##OP,                         \
           float: shmem_float_##OP, double: shmem_double_##OP,                            \
           long double: shmem_longdouble_##OP)
#define INTERLACE_SHMEM_GEN_ARITH(dest, OP)                                              \
  _Generic(*(dest), INTERLACE_SHMEM_GEN_INTS(dest, OP), char: shmem_char_##OP,           \
           signed char: shmem_schar_##OP, short: shmem_short_##OP, int: shmem_int_##OP,  \
           long: shmem_long_##OP, long long: shmem_longlong_##OP,                         \
           float: shmem_float_##OP, double: shmem_double_##OP,                            \
           long double: shmem_longdouble_##OP, double _Complex: shmem_complexd_##OP,      \
           float _Complex: shmem_complexf_##OP)
#define INTERLACE_SHMEM_GEN_BITWISE(dest, OP)                                            \
  _Generic(*(dest), INTERLACE_SHMEM_GEN_INTS(dest, OP), int8_t: shmem_int8_##OP,         \
           int16_t: shmem_int16_##OP, int32_t: shmem_int32_##OP, int64_t: shmem_int64_##OP)
#define shmem_broadcast(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, broadcast)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, collect)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, fcollect)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, alltoall)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, alltoalls)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_BITWISE(dest, and_reduce)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_BITWISE(dest, or_reduce)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_BITWISE(dest, xor_reduce)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, max_reduce)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_COMPARE(dest, min_reduce)(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_ARITH(dest, sum_reduce)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) INTERLACE_SHMEM_GEN_ARITH(dest, prod_reduce)(team, dest, __VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
/* The overloads cover the distinct C types once each (int32_t is int, ...). */
#define INTERLACE_SHMEM_CXX_INTS(X)                                                      \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)               \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define INTERLACE_SHMEM_CXX_SIGNED(X)                                                    \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)          \
  X(long long, longlong) X(float, float) X(double, double) X(long double, longdouble)
#define INTERLACE_SHMEM_CXX_MOVE(T, N)                                                   \
  static inline int shmem_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int r) { \
    return shmem_##N##_broadcast(t, d, s, n, r);                                         \
  }                                                                                      \
  static inline int shmem_collect(shmem_team_t t, T* d, const T* s, size_t n) {          \
    return shmem_##N##_collect(t, d, s, n);                                              \
  }                                                                                      \
  static inline int shmem_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {         \
    return shmem_##N##_fcollect(t, d, s, n);                                             \
  }                                                                                      \
  static inline int shmem_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {         \
    return shmem_##N##_alltoall(t, d, s, n);                                             \
  }                                                                                      \
  static inline int shmem_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst,     \
                                    ptrdiff_t sst, size_t n) {                           \
    return shmem_##N##_alltoalls(t, d, s, dst, sst, n);                                  \
  }
#define INTERLACE_SHMEM_CXX_REDUCE(T, N, OP)                                             \
  static inline int shmem_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {    \
    return shmem_##N##_##OP##_reduce(t, d, s, n);                                        \
  }
#define INTERLACE_SHMEM_CXX_BITWISE(T, N)                                                \
  INTERLACE_SHMEM_CXX_REDUCE(T, N, and) INTERLACE_SHMEM_CXX_REDUCE(T, N, or)             \
  INTERLACE_SHMEM_CXX_REDUCE(T, N, xor)
#define INTERLACE_SHMEM_CXX_COMPARE(T, N)                                                \
  INTERLACE_SHMEM_CXX_REDUCE(T, N, max) INTERLACE_SHMEM_CXX_REDUCE(T, N, min)
#define INTERLACE_SHMEM_CXX_ARITH(T, N)                                                  \
  INTERLACE_SHMEM_CXX_REDUCE(T, N, sum) INTERLACE_SHMEM_CXX_REDUCE(T, N, prod)
INTERLACE_SHMEM_CXX_INTS(INTERLACE_SHMEM_CXX_MOVE)
INTERLACE_SHMEM_CXX_SIGNED(INTERLACE_SHMEM_CXX_MOVE)
INTERLACE_SHMEM_CXX_INTS(INTERLACE_SHMEM_CXX_BITWISE)
INTERLACE_SHMEM_CXX_BITWISE(int8_t, int8)
INTERLACE_SHMEM_CXX_BITWISE(int16_t, int16)
INTERLACE_SHMEM_CXX_BITWISE(int32_t, int32)
INTERLACE_SHMEM_CXX_BITWISE(int64_t, int64)
INTERLACE_SHMEM_CXX_INTS(INTERLACE_SHMEM_CXX_COMPARE)
INTERLACE_SHMEM_CXX_SIGNED(INTERLACE_SHMEM_CXX_COMPARE)
INTERLACE_SHMEM_CXX_INTS(INTERLACE_SHMEM_CXX_ARITH)
INTERLACE_SHMEM_CXX_SIGNED(INTERLACE_SHMEM_CXX_ARITH)
INTERLACE_SHMEM_CXX_ARITH(INTERLACE_SHMEM_COMPLEXD, complexd)
INTERLACE_SHMEM_CXX_ARITH(INTERLACE_SHMEM_COMPLEXF, complexf)
static inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }
#endif /* __cplusplus */

#endif /* INTERLACE_SHMEM_TEAMS_H */
