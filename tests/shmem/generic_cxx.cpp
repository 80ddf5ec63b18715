// pes: 1 2 3 4 8
// The C++ overloads of the type-generic OpenSHMEM calls (shmem_put, shmem_get, shmem_p,
// shmem_g, shmem_atomic_*, shmem_wait_until), which C reaches through _Generic. Built
// against interlace only when the header has no C++ overloads (OSHMEM's has none).
#include <shmem.h>

#include <cstdio>

static long gl[4];
static double gd[2];
static int gi;
static int failures;
static int fails_total;  // symmetric: the sum over PEs, on PE 0

#define CHECK(cond, what)                                                        \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "FAIL generic_cxx pe %d: %s\n", shmem_my_pe(), what); \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

int main() {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  long sl[4] = {me * 10L, me * 10L + 1, me * 10L + 2, me * 10L + 3};
  double sd[2] = {me + 0.5, me + 0.25};
  shmem_put(gl, sl, 4, right);
  shmem_put(gd, sd, 2, right);
  shmem_p(&gi, me + 3, right);
  shmem_barrier_all();
  CHECK(gl[3] == left * 10L + 3, "shmem_put(long*)");
  CHECK(gd[1] == left + 0.25, "shmem_put(double*)");
  CHECK(gi == left + 3, "shmem_p(int*)");
  long rl[4] = {};
  shmem_get(rl, gl, 4, right);
  CHECK(rl[2] == me * 10L + 2, "shmem_get(long*)");
  CHECK(shmem_g(&gd[0], right) == me + 0.5, "shmem_g(double*)");
  shmem_barrier_all();
  gi = 0;
  shmem_barrier_all();
  shmem_atomic_add(&gi, 1, 0);
  CHECK(shmem_atomic_fetch_add(&gl[0], 1L << 40, right) >= 0, "shmem_atomic_fetch_add(long*)");
  shmem_barrier_all();
  if (me == 0) CHECK(gi == n, "shmem_atomic_add(int*) total");
  CHECK(gl[0] == left * 10L + (1L << 40), "shmem_atomic_fetch_add(long*) result");
  shmem_barrier_all();
  shmem_atomic_set(&gl[1], 77L + me, right);
  shmem_wait_until(&gl[1], SHMEM_CMP_EQ, 77L + left);
  CHECK(shmem_atomic_fetch(&gl[1], me) == 77L + left, "shmem_atomic_fetch(long*)");
  shmem_barrier_all();
  if (failures) shmem_int_atomic_add(&fails_total, failures, 0);
  shmem_barrier_all();
  if (me == 0 && fails_total == 0) std::printf("OK generic_cxx\n");
  shmem_finalize();
  return failures ? 1 : 0;
}
