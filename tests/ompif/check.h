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
#endif
