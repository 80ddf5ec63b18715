/* The AMO type classes of OpenSHMEM 1.5 (TYPE, TYPENAME), for X-macros. The
 * fixed-width types, size_t and ptrdiff_t joined the standard AMO types in 1.5
 * (OSHMEM 1.4 lacks them). */
#define SHMEM_TEST_AMO_STD_14(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#if SHMEM_TEST_15
#define SHMEM_TEST_AMO_STD(X) SHMEM_TEST_AMO_STD_14(X) X(int32_t, int32) X(int64_t, int64) \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#else
#define SHMEM_TEST_AMO_STD(X) SHMEM_TEST_AMO_STD_14(X)
#endif
/* extended AMO types beyond the standard ones: fetch, set, swap only */
#define SHMEM_TEST_AMO_EXT(X) X(float, float) X(double, double)
#define SHMEM_TEST_AMO_BIT(X) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* OSHMEM 4.1's 32-bit compare-swap is known to be broken; interlace runs it. */
#define SHMEM_TEST_CSWAP_OK(T) (!SHMEM_TEST_OSHMEM || sizeof(T) != 4)

/* OSHMEM 4.1.4's fetch_and/or/xor (UCX atomics) are wrong: with one PE on itself,
 * fetch_or returns the old value and leaves the target unchanged, fetch_xor zeroes
 * it. Under OSHMEM, FETCH_BIT reads the old value with a get and applies the
 * non-fetching form (exact where only the caller changes the target); interlace runs
 * the real fetching forms. tmp_ is a T declared by the caller. */
#if SHMEM_TEST_OSHMEM
#define FETCH_BIT(NAME, OP, x, v, pe) \
  (shmem_quiet(), tmp_ = shmem_##NAME##_g(x, pe), shmem_##NAME##_atomic_##OP(x, v, pe), \
   shmem_quiet(), tmp_)
#else
#define FETCH_BIT(NAME, OP, x, v, pe) shmem_##NAME##_atomic_fetch_##OP(x, v, pe)
#endif
