/* pes: 1 2 3 4 8 */
/* Memory ordering: fence orders puts to one PE (data, fence, flag; the target waits
 * on the flag and must see the data), quiet completes non-blocking puts (a get after
 * quiet sees them; a flag after quiet implies the data), and wait_until sees plain
 * concurrent puts from every PE. Many rounds, acknowledged, so no round overwrites
 * data the target has not checked yet. */
#include "check.h"

#define N 512
#define ROUNDS 200

static long data[N];
static long flag, ack;
static long slots[64];

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  long *hdata = shmem_malloc(16384 * sizeof(long));
  long *src = malloc(16384 * sizeof(long));

  for (int r = 1; r <= ROUNDS; ++r) {
    int len = r % 3 == 0 ? N : 1 + r % 37; /* short and long puts */
    for (int i = 0; i < len; ++i) src[i] = r * 1000L + i;
    if (r % 2) shmem_long_put(data, src, len, right);
    else shmem_long_put_nbi(data, src, len, right);
    shmem_fence();
    shmem_long_p(&flag, r, right); /* ordered after the data by the fence */
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
    for (int i = 0; i < len; ++i)
      if (data[i] != r * 1000L + i) {
        CHECK(0, "fence round %d: data[%d] = %ld, want %ld", r, i, data[i], r * 1000L + i);
        break;
      }
    shmem_long_atomic_set(&ack, r, left); /* the left neighbour may write again */
    shmem_long_wait_until(&ack, SHMEM_CMP_EQ, r);
  }
  shmem_barrier_all();

  /* quiet completes nbi puts: a get afterwards sees all of them */
  for (int r = 1; r <= 20; ++r) {
    int len = 1 + (r * 811) % 16384;
    for (int i = 0; i < len; ++i) src[i] = -(r * 100000L + i);
    shmem_long_put_nbi(hdata, src, len, right);
    shmem_quiet();
    long back[4];
    shmem_long_get(back, hdata + len - 1, 1, right);
    shmem_long_get(back + 1, hdata, 1, right);
    CHECK(back[0] == -(r * 100000L + len - 1) && back[1] == -(r * 100000L),
          "quiet round %d: got %ld %ld after quiet", r, back[0], back[1]);
    /* quiet, then a flag: the target sees the data once it sees the flag */
    shmem_quiet();
    shmem_long_atomic_set(&flag, 1000 + r, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1000 + r);
    CHECK(hdata[len - 1] == -(r * 100000L + len - 1), "quiet+flag round %d: last word %ld", r,
          hdata[len - 1]);
    shmem_barrier_all();
  }

  /* wait_until sees plain puts from every PE, round after round */
  for (int r = 1; r <= 50; ++r) {
    for (int k = 1; k < n; ++k) shmem_long_p(&slots[me], r, (me + k) % n);
    for (int p = 0; p < n; ++p)
      if (p != me) shmem_long_wait_until(&slots[p], SHMEM_CMP_GE, r);
  }
  for (int p = 0; p < n; ++p)
    if (p != me) CHECK_EQ(slots[p], 50, "slot after 50 rounds of puts");
  shmem_barrier_all();
  free(src);
  shmem_free(hdata);
  return check_finish("ordering");
}
