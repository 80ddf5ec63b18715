/* pes: 1 2 3 4 8 */
/* The deprecated active-set collectives with pSync/pWrk, which much existing code and
 * many benchmarks still use: barrier, broadcast32/64, collect32/64, fcollect32/64,
 * alltoall32/64, alltoalls64 and the TYPE_OP_to_all reductions, on the whole world
 * (0, 0, n) and on the even PEs (0, 1, ceil(n/2)). pSync arrays are reused only after
 * a barrier, as the specification requires. */
#include "check.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                 : SHMEM_BCAST_SYNC_SIZE];
static long psync_c[SHMEM_COLLECT_SYNC_SIZE];
static long psync_a[SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_b[SHMEM_BARRIER_SYNC_SIZE];
static int iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long lwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int64_t src64[64 * 4], dst64[64 * 4];
static int32_t src32[64 * 4], dst32[64 * 4];
static int isrc[4], idst[4];
static long lsrc[4], ldst[4];
static double dsrc[2], ddst[2];

static void init_psync(void) {
  for (size_t i = 0; i < sizeof psync / sizeof psync[0]; ++i) psync[i] = SHMEM_SYNC_VALUE;
  for (size_t i = 0; i < sizeof psync_c / sizeof psync_c[0]; ++i) psync_c[i] = SHMEM_SYNC_VALUE;
  for (size_t i = 0; i < sizeof psync_a / sizeof psync_a[0]; ++i) psync_a[i] = SHMEM_SYNC_VALUE;
  for (size_t i = 0; i < sizeof psync_b / sizeof psync_b[0]; ++i) psync_b[i] = SHMEM_SYNC_VALUE;
}

/* active set: start 0, stride 2^logs, size sz; `me` is this PE's index in the set */
static void on_set(int logs, int sz, int me) {
  for (int i = 0; i < 64 * 4; ++i) src64[i] = me * 1000 + i, src32[i] = me * 1000 + i;
  for (int i = 0; i < 64 * 4; ++i) dst64[i] = dst32[i] = -1;
  shmem_barrier(0, logs, sz, psync_b);

  for (int root = 0; root < sz; root += (sz > 2 ? sz - 1 : 1)) {
    shmem_broadcast64(dst64, src64, 3, root, 0, logs, sz, psync);
    shmem_barrier(0, logs, sz, psync_b);
    if (me != root) /* the root's target is not updated by the 1.4 broadcasts */
      for (int i = 0; i < 3; ++i) CHECK_EQ(dst64[i], root * 1000 + i, "broadcast64");
    shmem_broadcast32(dst32, src32, 5, root, 0, logs, sz, psync);
    shmem_barrier(0, logs, sz, psync_b);
    if (me != root) CHECK_EQ(dst32[4], root * 1000 + 4, "broadcast32");
  }

  shmem_fcollect64(dst64, src64, 2, 0, logs, sz, psync_c);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0; p < sz; ++p) CHECK_EQ(dst64[2 * p + 1], p * 1000 + 1, "fcollect64");
  shmem_fcollect32(dst32, src32, 1, 0, logs, sz, psync_c);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0; p < sz; ++p) CHECK_EQ(dst32[p], p * 1000, "fcollect32");
  shmem_collect64(dst64, src64, (size_t)me + 1, 0, logs, sz, psync_c);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0, k = 0; p < sz; ++p)
    for (int i = 0; i <= p; ++i, ++k) CHECK_EQ(dst64[k], p * 1000 + i, "collect64");
  shmem_collect32(dst32, src32, (size_t)(me % 2) + 1, 0, logs, sz, psync_c);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0, k = 0; p < sz; ++p)
    for (int i = 0; i <= p % 2; ++i, ++k) CHECK_EQ(dst32[k], p * 1000 + i, "collect32");

  shmem_alltoall64(dst64, src64, 2, 0, logs, sz, psync_a);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0; p < sz; ++p) CHECK_EQ(dst64[2 * p + 1], p * 1000 + me * 2 + 1, "alltoall64");
  shmem_alltoall32(dst32, src32, 1, 0, logs, sz, psync_a);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0; p < sz; ++p) CHECK_EQ(dst32[p], p * 1000 + me, "alltoall32");
  shmem_alltoalls64(dst64, src64, 2, 3, 1, 0, logs, sz, psync_a);
  shmem_barrier(0, logs, sz, psync_b);
  for (int p = 0; p < sz; ++p) CHECK_EQ(dst64[p * 2], p * 1000 + me * 3, "alltoalls64");

  for (int i = 0; i < 4; ++i) isrc[i] = (me + 1) * (i + 1), lsrc[i] = 1L << me;
  dsrc[0] = me + 0.25;
  dsrc[1] = me;
  shmem_barrier(0, logs, sz, psync_b);
  shmem_int_sum_to_all(idst, isrc, 4, 0, logs, sz, iwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(idst[3], 4 * sz * (sz + 1) / 2, "int_sum_to_all");
  shmem_int_max_to_all(idst, isrc, 4, 0, logs, sz, iwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(idst[1], 2 * sz, "int_max_to_all");
  shmem_int_min_to_all(idst, isrc, 4, 0, logs, sz, iwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(idst[2], 3, "int_min_to_all");
  shmem_long_or_to_all(ldst, lsrc, 4, 0, logs, sz, lwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(ldst[0], (1L << sz) - 1, "long_or_to_all");
  shmem_long_xor_to_all(ldst, lsrc, 4, 0, logs, sz, lwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(ldst[1], (1L << sz) - 1, "long_xor_to_all");
  shmem_long_and_to_all(ldst, lsrc, 4, 0, logs, sz, lwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(ldst[2], sz == 1 ? 1 : 0, "long_and_to_all");
  shmem_long_prod_to_all(ldst, lsrc, 1, 0, logs, sz, lwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK_EQ(ldst[0], 1L << (sz * (sz - 1) / 2), "long_prod_to_all");
  shmem_double_sum_to_all(ddst, dsrc, 2, 0, logs, sz, dwrk, psync);
  shmem_barrier(0, logs, sz, psync_b);
  CHECK(ddst[0] == sz * (sz - 1) / 2.0 + 0.25 * sz, "double_sum_to_all %g", ddst[0]);
}

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  init_psync();
  shmem_barrier_all(); /* every pSync is initialized before first use */
  on_set(0, n, me);
  shmem_barrier_all();
  if (me % 2 == 0 && n > 1) on_set(1, (n + 1) / 2, me / 2);
  shmem_barrier_all();
  return check_finish("coll_deprecated");
}
