/* pes: 1 2 3 4 8 */
/* oshmem */
/* The deprecated active-set collectives (OpenSHMEM 1.4 API: builds with Open MPI's
 * oshcc as well): broadcast32/64 (the root's dest stays untouched), collect and
 * fcollect, alltoall(s), the *_to_all reductions, shmem_barrier/shmem_sync, on the
 * whole job, the even PEs (logPE_stride 1) and the upper half. */
#include <complex.h>
#include <string.h>

#include "check.h"

#define N 8
static long psync_a[SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                       : SHMEM_COLLECT_SYNC_SIZE];
static long psync_b[sizeof psync_a / sizeof psync_a[0]];
static long psync_c[sizeof psync_a / sizeof psync_a[0]];
static long pbar_a[SHMEM_BARRIER_SYNC_SIZE], pbar_b[SHMEM_BARRIER_SYNC_SIZE], pbar_c[SHMEM_BARRIER_SYNC_SIZE];
static long pwrk_l[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int pwrk_i[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double pwrk_d[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long double pwrk_ld[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double _Complex pwrk_z[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static short pwrk_s[N + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static int me, npes;
static int mailbox; /* symmetric (static data) */

static void reset(long* ps, size_t n) {
  for (size_t i = 0; i < n; ++i) ps[i] = SHMEM_SYNC_VALUE;
}

/* The i-th member of the set, or -1 when this PE is not one; *idx its index. */
static int member(int start, int logs, int size, int* idx) {
  int stride = 1 << logs;
  if (me < start || (me - start) % stride || (me - start) / stride >= size) return 0;
  *idx = (me - start) / stride;
  return 1;
}

static void run_set(int start, int logs, int size, long* ps, long* pb) {
  int idx, stride = 1 << logs;
  if (!member(start, logs, size, &idx)) return;
  static int32_t s32[N * 8], d32[N * 8];
  static int64_t s64[N * 8], d64[N * 8];

  /* shmem_barrier completes the puts issued before it: member k puts to member k+1 */
  mailbox = -1;
  shmem_barrier(start, logs, size, pb);
  shmem_int_p(&mailbox, me, start + ((idx + 1) % size) * stride);
  shmem_barrier(start, logs, size, pb);
  CHECK(mailbox == start + ((idx + size - 1) % size) * stride, "put before shmem_barrier: mailbox %d", mailbox);
  shmem_barrier(start, logs, size, pb);

  /* broadcast: root 1 % size, relative to the set */
  int root = 1 % size;
  for (int i = 0; i < N; ++i) { s64[i] = 1000 * me + i; d64[i] = -1; s32[i] = 10 * me + i; d32[i] = -1; }
  shmem_barrier(start, logs, size, pb);
  shmem_broadcast64(d64, s64, N, root, start, logs, size, ps);
  shmem_sync(start, logs, size, pb);
  for (int i = 0; i < N; ++i) {
    long want = idx == root ? -1 : 1000 * (start + root * stride) + i;
    CHECK(d64[i] == want, "broadcast64 set (%d,%d,%d) d[%d] = %ld, want %ld", start, logs, size, i, (long)d64[i], want);
  }
  shmem_broadcast32(d32, s32, 3, root, start, logs, size, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < 3; ++i) {
    int want = idx == root ? -1 : 10 * (start + root * stride) + i;
    CHECK(d32[i] == want, "broadcast32 d[%d] = %d, want %d", i, d32[i], want);
  }

  /* fcollect64: 2 elements per PE in set order */
  for (int i = 0; i < 2; ++i) s64[i] = 100 * me + i;
  shmem_fcollect64(d64, s64, 2, start, logs, size, ps);
  shmem_barrier(start, logs, size, pb);
  for (int k = 0; k < size; ++k)
    for (int i = 0; i < 2; ++i)
      CHECK(d64[2 * k + i] == 100 * (start + k * stride) + i, "fcollect64 d[%d] = %ld", 2 * k + i, (long)d64[2 * k + i]);

  /* collect32: member k contributes k+1 elements */
  for (int i = 0; i <= idx; ++i) s32[i] = 1000 * idx + i;
  shmem_collect32(d32, s32, (size_t)idx + 1, start, logs, size, ps);
  shmem_barrier(start, logs, size, pb);
  int at = 0;
  for (int k = 0; k < size; ++k)
    for (int i = 0; i <= k; ++i, ++at)
      CHECK(d32[at] == 1000 * k + i, "collect32 d[%d] = %d, want %d", at, d32[at], 1000 * k + i);

  /* alltoall64: block j of 2 elements goes to member j */
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < 2; ++i) s64[2 * j + i] = 10000 * idx + 100 * j + i;
  shmem_alltoall64(d64, s64, 2, start, logs, size, ps);
  shmem_barrier(start, logs, size, pb);
  for (int k = 0; k < size; ++k)
    for (int i = 0; i < 2; ++i)
      CHECK(d64[2 * k + i] == 10000 * k + 100 * idx + i, "alltoall64 d[%d] = %ld", 2 * k + i, (long)d64[2 * k + i]);

  /* alltoalls32: 1 element per PE, source stride 2, dest stride 3 */
  for (int i = 0; i < N * 8; ++i) { s32[i] = -5; d32[i] = -7; }
  for (int j = 0; j < size; ++j) s32[2 * j] = 100 * idx + j;
  shmem_barrier(start, logs, size, pb);
  shmem_alltoalls32(d32, s32, 3, 2, 1, start, logs, size, ps);
  shmem_barrier(start, logs, size, pb);
  for (int k = 0; k < size; ++k) {
    CHECK(d32[3 * k] == 100 * k + idx, "alltoalls32 d[%d] = %d, want %d", 3 * k, d32[3 * k], 100 * k + idx);
    if (k + 1 < size) CHECK(d32[3 * k + 1] == -7, "alltoalls32 wrote between strides at %d", 3 * k + 1);
  }

  /* reductions: sum/max/and of long, prod of int (in place), double min, long double sum,
   * complex sum and prod, short xor */
  static long sl[N], dl[N];
  static int si[N];
  static double sd[N], dd[N];
  static long double sld[N], dld[N];
  static double _Complex sz[N], dz[N];
  static short ss[N], ds[N];
  for (int i = 0; i < N; ++i) {
    sl[i] = me + i; si[i] = (i == idx) ? 2 : 1; sd[i] = (double)(me * 3 % 7) + i;
    sld[i] = 0.5L * me + i; sz[i] = (me + 1) + 1.0 * I; ss[i] = (short)(1 << (me % 15));
  }
  shmem_barrier(start, logs, size, pb);
  long sum = 0, mx = 0, band = -1; double mn = 1e300; short x = 0; long double lds = 0;
  double _Complex zs = 0, zp = 1;
  for (int k = 0; k < size; ++k) {
    int pe = start + k * stride;
    sum += pe; mx = pe > mx ? pe : mx; band &= pe;
    mn = (double)(pe * 3 % 7) < mn ? (double)(pe * 3 % 7) : mn;
    x ^= (short)(1 << (pe % 15)); lds += 0.5L * pe;
    zs += (pe + 1) + 1.0 * I; zp *= (pe + 1) + 1.0 * I;
  }
  shmem_long_sum_to_all(dl, sl, N, start, logs, size, pwrk_l, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(dl[i] == sum + (long)size * i, "long_sum_to_all d[%d] = %ld", i, dl[i]);
  shmem_long_max_to_all(dl, sl, N, start, logs, size, pwrk_l, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(dl[i] == mx + i, "long_max_to_all d[%d] = %ld", i, dl[i]);
  for (int i = 0; i < N; ++i) sl[i] = me;
  shmem_barrier(start, logs, size, pb);
  shmem_long_and_to_all(dl, sl, N, start, logs, size, pwrk_l, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(dl[i] == band, "long_and_to_all d[%d] = %ld, want %ld", i, dl[i], band);
  shmem_int_prod_to_all(si, si, N, start, logs, size, pwrk_i, ps); /* in place */
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(si[i] == (i < size ? 2 : 1), "int_prod_to_all in place d[%d] = %d", i, si[i]);
  shmem_double_min_to_all(dd, sd, N, start, logs, size, pwrk_d, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(dd[i] == mn + i, "double_min_to_all d[%d] = %g", i, dd[i]);
  shmem_longdouble_sum_to_all(dld, sld, N, start, logs, size, pwrk_ld, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i)
    CHECK(dld[i] == lds + (long double)size * i, "longdouble_sum_to_all d[%d] = %Lg", i, dld[i]);
  shmem_complexd_sum_to_all(dz, sz, N, start, logs, size, pwrk_z, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(dz[i] == zs, "complexd_sum_to_all d[%d] = %g%+gi", i, creal(dz[i]), cimag(dz[i]));
  shmem_complexd_prod_to_all(dz, sz, 3, start, logs, size, pwrk_z, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < 3; ++i)
    CHECK(cabs(dz[i] - zp) <= 1e-9 * cabs(zp), "complexd_prod_to_all d[%d] = %g%+gi, want %g%+gi", i,
          creal(dz[i]), cimag(dz[i]), creal(zp), cimag(zp));
  shmem_short_xor_to_all(ds, ss, N, start, logs, size, pwrk_s, ps);
  shmem_barrier(start, logs, size, pb);
  for (int i = 0; i < N; ++i) CHECK(ds[i] == x, "short_xor_to_all d[%d] = %d, want %d", i, ds[i], x);
  /* nreduce 0 is a no-op */
  dl[0] = 42;
  shmem_long_sum_to_all(dl, sl, 0, start, logs, size, pwrk_l, ps);
  CHECK(dl[0] == 42, "nreduce 0 changed dest");
  shmem_barrier(start, logs, size, pb);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  reset(psync_a, sizeof psync_a / sizeof psync_a[0]);
  reset(psync_b, sizeof psync_b / sizeof psync_b[0]);
  reset(psync_c, sizeof psync_c / sizeof psync_c[0]);
  reset(pbar_a, SHMEM_BARRIER_SYNC_SIZE);
  reset(pbar_b, SHMEM_BARRIER_SYNC_SIZE);
  reset(pbar_c, SHMEM_BARRIER_SYNC_SIZE);
  shmem_barrier_all();
  shmem_sync_all();

  run_set(0, 0, npes, psync_a, pbar_a);
  shmem_barrier_all();
  run_set(0, 1, (npes + 1) / 2, psync_b, pbar_b); /* even PEs */
  if (npes >= 2) run_set(1, 1, npes / 2, psync_c, pbar_c); /* odd PEs, at the same time */
  shmem_barrier_all();
  if (npes >= 2) run_set(npes / 2, 0, npes - npes / 2, psync_a, pbar_a); /* upper half */
  shmem_barrier_all();
  run_set(0, 0, npes, psync_a, pbar_a); /* the cached set again */
  shmem_barrier_all();
  if (me == 0) printf("OK active_set\n");
  shmem_finalize();
  return 0;
}
