/* The point-to-point synchronization types of OpenSHMEM 1.5 (TYPE, TYPENAME). */
#define SHMEM_TEST_SYNC_TYPES(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) \
  X(ptrdiff_t, ptrdiff)
