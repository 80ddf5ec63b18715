/* Shared checking helpers of the tests/shmem_teams programs (plain C, any OpenSHMEM). */
#ifndef SHMEM_TEAMS_CHECK_H
#define SHMEM_TEAMS_CHECK_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

/* A failed expectation names itself and the PE, then ends the job. */
#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "FAIL: PE %d: %s:%d: ", shmem_my_pe(), __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      fflush(stderr);                                                      \
      shmem_global_exit(1);                                                \
    }                                                                      \
  } while (0)

#endif
