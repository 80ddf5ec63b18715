/* Shared bits of the fidelity programs (docs/fidelity.md): option parsing and one JSON
 * object per result line, so bench/run_fidelity.py can collect them. Times come from
 * interlace_wtime(): virtual seconds on the sim fabric, wall-clock seconds elsewhere,
 * which keeps every program runnable (and smoke-tested) on shm. */
#ifndef FID_COMMON_H
#define FID_COMMON_H

#include <interlace/clock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --name VALUE as a long, or `def` when absent; a value that is not a number ends the
 * program with a message naming it (bad input must never turn into a silent default). */
static inline long fid_opt_long(int argc, char** argv, const char* name, long def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) {
      char* end = NULL;
      long v = strtol(argv[i + 1], &end, 10);
      if (end == argv[i + 1] || *end != '\0') {
        fprintf(stderr, "%s: %s needs an integer, got '%s'\n", argv[0], name, argv[i + 1]);
        exit(2);
      }
      return v;
    }
  return def;
}

static inline double fid_opt_double(int argc, char** argv, const char* name, double def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) {
      char* end = NULL;
      double v = strtod(argv[i + 1], &end);
      if (end == argv[i + 1] || *end != '\0' || !(v >= 0)) {
        fprintf(stderr, "%s: %s needs a non-negative number, got '%s'\n", argv[0], name,
                argv[i + 1]);
        exit(2);
      }
      return v;
    }
  return def;
}

static inline const char* fid_opt_str(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}

static inline int fid_flag(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

/* Charges modelled compute; a refusal is a bug in the caller's rate, so it is fatal. */
static inline void fid_charge(double seconds) {
  if (seconds > 0 && interlace_charge(seconds) != 0) exit(3);
}

/* The "virtual" field says which clock the numbers came from, so a table built from a
 * shm run can never pass for a simulated one. */
#define FID_PRINT(fmt, ...)                                                              \
  do {                                                                                   \
    printf("{\"virtual\": %d, " fmt "}\n", interlace_wtime_is_virtual(), __VA_ARGS__);   \
    fflush(stdout);                                                                      \
  } while (0)

#endif
