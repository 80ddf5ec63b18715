/* ranks: 1 2 3 4 8 */
/* Atomicity of one-sided accumulates issued by every rank at once at the same
 * target locations: MPI_Accumulate (SUM, element-wise on an array), MPI_Fetch_and_op
 * (each rank must fetch a distinct ticket), MPI_Compare_and_swap (a spin lock that
 * guards a non-atomic counter), MPI_Get_accumulate and MPI_REPLACE / MPI_NO_OP; on a
 * window from MPI_Win_allocate and on one from MPI_Win_create over malloc'd memory
 * (an implementation may carry the two differently). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int me, np;

static void expect(long long got, long long want, const char *what) {
  if (got != want) {
    fprintf(stderr, "FAIL: rank %d: %s: got %lld, want %lld\n", me, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

enum { ARR = 64, ROUNDS = 50, ACC_ROUNDS = 2000 };

/* Layout on rank 0 (long long): [0, ARR) sums, ARR ticket counter, ARR+1 lock word,
 * ARR+2 guarded counter, ARR+3 replace target, [ARR+4, ARR+4+np*ROUNDS) tickets. */
static void atomics(MPI_Win win, long long *mem, int n) {
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
  for (int i = 0; i < n; ++i) mem[i] = 0;
  MPI_Win_unlock(me, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);

  /* Element-wise SUM of an array from every rank, ACC_ROUNDS times (enough rounds that
   * unserialised updates from ranks running at once would lose some). */
  long long add[ARR];
  for (int i = 0; i < ARR; ++i) add[i] = i + 1 + me;
  for (int k = 0; k < ACC_ROUNDS; ++k) MPI_Accumulate(add, ARR, MPI_LONG_LONG, 0, 0, ARR, MPI_LONG_LONG, MPI_SUM, win);
  MPI_Win_flush(0, win);

  /* Tickets: fetch_and_op +1; every fetched value must be distinct. */
  long long one = 1, ticket;
  for (int k = 0; k < ROUNDS; ++k) {
    MPI_Fetch_and_op(&one, &ticket, MPI_LONG_LONG, 0, ARR, MPI_SUM, win);
    MPI_Win_flush(0, win);
    if (ticket < 0 || ticket >= np * ROUNDS) expect(ticket, 0, "ticket in range");
    long long mark = 1;
    MPI_Accumulate(&mark, 1, MPI_LONG_LONG, 0, ARR + 4 + ticket, 1, MPI_LONG_LONG, MPI_SUM, win);
  }
  MPI_Win_flush(0, win);

  /* A CAS spin lock around a get/increment/put of a plain counter. */
  for (int k = 0; k < 10; ++k) {
    long long zero = 0, mine = me + 1, old = -1, c;
    do {
      MPI_Compare_and_swap(&mine, &zero, &old, MPI_LONG_LONG, 0, ARR + 1, win);
      MPI_Win_flush(0, win);
    } while (old != 0);
    MPI_Get(&c, 1, MPI_LONG_LONG, 0, ARR + 2, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
    ++c;
    MPI_Put(&c, 1, MPI_LONG_LONG, 0, ARR + 2, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
    MPI_Compare_and_swap(&zero, &mine, &old, MPI_LONG_LONG, 0, ARR + 1, win);
    MPI_Win_flush(0, win);
    expect(old, mine, "CAS unlock finds our own value");
  }

  /* Get_accumulate with MPI_REPLACE: a swap; the value seen must be some rank's+1. */
  long long mine = me + 1, prev = -1;
  MPI_Get_accumulate(&mine, 1, MPI_LONG_LONG, &prev, 1, MPI_LONG_LONG, 0, ARR + 3, 1, MPI_LONG_LONG, MPI_REPLACE,
                     win);
  MPI_Win_flush(0, win);
  if (prev < 0 || prev > np) expect(prev, 0, "swap returns 0 or some rank's value");
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);

  if (me == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    for (int i = 0; i < ARR; ++i)
      expect(mem[i], (long long)ACC_ROUNDS * ((long long)(i + 1) * np + (long long)np * (np - 1) / 2),
             "element-wise accumulate from every rank");
    expect(mem[ARR], (long long)np * ROUNDS, "fetch_and_op counter");
    for (int t = 0; t < np * ROUNDS; ++t) expect(mem[ARR + 4 + t], 1, "each ticket fetched exactly once");
    expect(mem[ARR + 1], 0, "CAS lock released");
    expect(mem[ARR + 2], 10LL * np, "counter guarded by the CAS lock");
    MPI_Win_unlock(0, win);
  }
  /* Atomic read with MPI_NO_OP via Fetch_and_op. */
  MPI_Win_fence(0, win);
  long long seen = -1;
  MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, 0, ARR, MPI_NO_OP, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  expect(seen, (long long)np * ROUNDS, "fetch_and_op MPI_NO_OP reads the counter");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = ARR + 4 + np * ROUNDS;
  long long *mem;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)(n * sizeof(long long)), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  atomics(win, mem, n);
  MPI_Win_free(&win);
  mem = malloc(n * sizeof(long long));
  MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long long)), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  atomics(win, mem, n);
  MPI_Win_free(&win);
  free(mem);

  /* Other types and ops, byte displacements: MPI_DOUBLE SUM, MPI_INT MIN, MPI_UNSIGNED BXOR. */
  double *d;
  MPI_Win_allocate(4 * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &d, &win);
  int *ip = (int *)(d + 2);
  d[0] = d[1] = 0;
  ip[0] = 1 << 30;
  ip[1] = 0;
  MPI_Win_fence(0, win);
  double half = 0.5;
  int val = 100 - me;
  unsigned bits = 1u << (me % 32);
  MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Accumulate(&val, 1, MPI_INT, 0, 2 * sizeof(double), 1, MPI_INT, MPI_MIN, win);
  MPI_Accumulate(&bits, 1, MPI_UNSIGNED, 0, 2 * sizeof(double) + sizeof(int), 1, MPI_UNSIGNED, MPI_BXOR, win);
  MPI_Win_fence(0, win);
  if (me == 0) {
    expect((long long)(d[0] * 2), np, "MPI_DOUBLE MPI_SUM");
    expect(ip[0], 100 - (np - 1), "MPI_INT MPI_MIN (disp_unit 1)");
    unsigned want = 0;
    for (int r = 0; r < np; ++r) want ^= 1u << (r % 32);
    expect((long long)(unsigned)ip[1], want, "MPI_UNSIGNED MPI_BXOR");
  }
  MPI_Win_free(&win);
  if (me == 0) printf("OK conf_win_atomic\n");
  MPI_Finalize();
  return 0;
}
