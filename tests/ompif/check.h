/* Shared by the OMPIF test programs: CHECK prints the failed condition and exits 1. */
#ifndef OMPIF_TEST_CHECK_H
#define OMPIF_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

/* An OMPIF error handler that prints "ERR <code> <message>" and returns, and a check
 * that a call reported exactly one error through it. */
static int reported;
static inline void record(int code, const char* message) {
  printf("ERR %d %s\n", code, message);
  fflush(stdout);
  ++reported;
}
#define EXPECT_ERROR(call)                                    \
  do {                                                        \
    int before = reported;                                    \
    call;                                                     \
    CHECK(reported == before + 1, "no error from %s", #call); \
  } while (0)
#endif
