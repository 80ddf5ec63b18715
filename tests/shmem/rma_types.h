/* The standard RMA types of OpenSHMEM (TYPE, TYPENAME), for X-macros. */
#define SHMEM_TEST_RMA_TYPES(X) \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
  X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) \
  X(ptrdiff_t, ptrdiff)
