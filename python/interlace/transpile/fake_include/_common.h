/* interlace transpile: stand-in for the C library's headers, for parsing only.
   Only the type names a program may use are declared; macros (NULL, EOF,
   INT_MAX, ...) stay identifiers, and the emitted file includes the real header. */
#ifndef IL_TP_COMMON_H
#define IL_TP_COMMON_H
typedef unsigned long size_t;
typedef long ssize_t;
typedef long ptrdiff_t;
typedef int wchar_t;
typedef struct IL_TP_FILE FILE;
typedef long off_t;
typedef int pid_t;
typedef long time_t;
typedef long clock_t;
typedef long suseconds_t;
typedef struct IL_TP_va_list *va_list;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
typedef _Bool bool;
typedef struct IL_TP_div div_t;
typedef struct IL_TP_ldiv ldiv_t;
struct timeval { time_t tv_sec; suseconds_t tv_usec; };
struct timespec { time_t tv_sec; long tv_nsec; };
#endif
