/* pes: 1 2 3 4 8 */
/* Distributed locks: set_lock/clear_lock and test_lock protect a non-atomic
 * read-modify-write (get, add one, put) of a counter on PE 0; N PEs x M increments
 * give exactly N*M. A second lock on the heap guards an owner word: whoever holds
 * it must still be the owner at the end of the critical section. */
#include "check.h"

#define M 60

static long lock1;
static long counter;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long *lock2 = shmem_calloc(1, sizeof(long));
  int *owner = shmem_calloc(1, sizeof(int));

  for (int i = 0; i < M; ++i) {
    /* OSHMEM 4.1.4 hangs (at 4 PEs, every time) when PEs take the same lock with
     * test_lock loops and set_lock mixed, even with a get between tries: it takes
     * the lock with set_lock only. interlace runs both. */
    if (i % 3 == 2 && !SHMEM_TEST_OSHMEM) {
      while (shmem_test_lock(&lock1) != 0) {} /* returns 0 once acquired */
    } else {
      shmem_set_lock(&lock1);
    }
    long c = shmem_long_g(&counter, 0);
    shmem_long_p(&counter, c + 1, 0);
    shmem_quiet(); /* the put is complete before the lock is released */
    shmem_clear_lock(&lock1);
  }

  for (int i = 0; i < M / 3; ++i) {
    shmem_set_lock(lock2);
    shmem_int_p(owner, me + 1, 0);
    shmem_quiet();
    for (int k = 0; k < 3; ++k) (void)shmem_long_g(&counter, (me + k) % n);
    int o = shmem_int_g(owner, 0);
    CHECK(o == me + 1, "lock2 held by PE %d, but the owner word says %d", me, o - 1);
    shmem_int_p(owner, 0, 0);
    shmem_quiet();
    shmem_clear_lock(lock2);
  }
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(counter, (long)n * M, "counter after N x M locked increments");
  /* a lock released by everyone can be taken again, by test_lock at first try */
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(shmem_test_lock(&lock1), 0, "test_lock on a free lock");
    shmem_clear_lock(&lock1);
  }
  shmem_barrier_all();
  shmem_free(lock2);
  shmem_free(owner);
  return check_finish("locks");
}
