/* Shared helpers of the OpenSHMEM conformance programs in tests/shmem/. Each program
 * is plain OpenSHMEM C, built against interlace's shmem.h and against Open MPI's
 * OSHMEM (oshcc) unchanged; the second build proves the expectations.
 *
 * A failed check prints one line to stderr, "FAIL <file>:<line> pe <p>: <what>" with
 * the values seen and expected, and the PE exits 1 after shmem_finalize. PE 0 prints
 * "OK <program>" when no PE failed (the totals meet on PE 0 through an atomic add). */
#ifndef SHMEM_TESTS_CHECK_H
#define SHMEM_TESTS_CHECK_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strnlen */
#endif
#include <shmem.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenSHMEM 1.5 parts: OSHMEM implements 1.4, interlace 1.5. */
#define SHMEM_TEST_15 (SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION >= 15)

/* OSHMEM is Open MPI's OpenSHMEM; some cases skip its known bugs. */
#if defined(OSHMEM_MAJOR_VERSION)
#define SHMEM_TEST_OSHMEM 1
#else
#define SHMEM_TEST_OSHMEM 0
#endif

static int check_failures;
static int check_fail_total; /* symmetric; summed on PE 0 by check_finish */

static void check_fail(const char *file, int line, const char *fmt, ...) {
  if (++check_failures > 50) return; /* one wrong loop must not flood the log */
  va_list ap;
  va_start(ap, fmt);
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL %s:%d pe %d: %s\n", file, line, shmem_my_pe(), msg);
}

#define CHECK(cond, ...) \
  do { if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
/* Integer equality, printing both values. */
#define CHECK_EQ(got, want, what) \
  do { long long g_ = (long long)(got), w_ = (long long)(want); \
       if (g_ != w_) check_fail(__FILE__, __LINE__, "%s: got %lld, want %lld", what, g_, w_); \
  } while (0)

static void check_begin(void) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* launchers read stdout through a pipe */
}

static int check_finish(const char *name) {
  if (check_failures) shmem_int_atomic_add(&check_fail_total, check_failures, 0);
  shmem_barrier_all();
  if (shmem_my_pe() == 0 && check_fail_total == 0) printf("OK %s\n", name);
  shmem_finalize();
  return check_failures ? 1 : 0;
}

/* A value that depends on the writer and the index, exact in every RMA type
 * (0..126 fits a signed char, and float holds it exactly). */
static inline int check_val(int pe, long i, int salt) {
  return (int)((pe * 37 + i * 11 + salt * 5 + 1) % 127);
}
#endif
