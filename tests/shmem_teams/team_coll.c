/* pes: 1 2 3 4 8 */
/* OpenSHMEM 1.5 team collectives on SHMEM_TEAM_WORLD and on the team of even PEs:
 * broadcast (dest updated on the root too), collect with a different count per PE,
 * fcollect, alltoall, alltoalls with strides, the reductions of every operator
 * (typed names, the C11 type-generic names, in place, complex, long double,
 * nreduce 0) and the byte forms. */
#include <complex.h>
#include <string.h>

#include "check.h"

#define N 16
static int me, npes;
static long *src, *dst; /* symmetric: shmem_malloc is collective over the world */

static void run(shmem_team_t team) {
  const int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
  for (int i = 0; i < N * 8; ++i) { src[i] = 100 * tme + i; dst[i] = -1; }
  shmem_team_sync(team);

  /* broadcast from the last PE of the team; the root's dest is written too */
  int root = tn - 1;
  CHECK(shmem_long_broadcast(team, dst, src, N, root) == 0, "broadcast rc");
  for (int i = 0; i < N; ++i) CHECK(dst[i] == 100 * root + i, "broadcast dst[%d] = %ld", i, dst[i]);
  CHECK(dst[N] == -1, "broadcast wrote beyond nelems");
  /* in place at the root (source == dest) with the generic name */
  for (int i = 0; i < N; ++i) dst[i] = tme == 0 ? 7 * i : -3;
  CHECK(shmem_broadcast(team, dst, dst, N, 0) == 0, "generic broadcast rc");
  for (int i = 0; i < N; ++i) CHECK(dst[i] == 7 * i, "in-place broadcast dst[%d] = %ld", i, dst[i]);
  char bytes[5] = {0}, bsrc[5] = "abcd";
  bsrc[0] = (char)('a' + tme);
  shmem_broadcastmem(team, bytes, bsrc, 5, 0);
  CHECK(strcmp(bytes, "abcd") == 0, "broadcastmem got '%s'", bytes);
  shmem_broadcast(team, dst, src, 0, 0); /* nelems 0 */

  /* collect: team PE k contributes k + 1 elements */
  for (int i = 0; i <= tme; ++i) src[i] = 1000 * tme + i;
  CHECK(shmem_long_collect(team, dst, src, (size_t)tme + 1) == 0, "collect rc");
  for (int k = 0, at = 0; k < tn; ++k)
    for (int i = 0; i <= k; ++i, ++at) CHECK(dst[at] == 1000 * k + i, "collect dst[%d] = %ld", at, dst[at]);
  int isrc[3] = {tme, tme, tme}, idst[3 * 8];
  CHECK(shmem_collect(team, idst, isrc, tme % 2 ? 0 : 3) == 0, "generic collect"); /* some give 0 */
  for (int k = 0, at = 0; k < tn; ++k)
    for (int i = 0; i < (k % 2 ? 0 : 3); ++i, ++at) CHECK(idst[at] == k, "collect with zeros idst[%d]", at);

  /* fcollect */
  for (int i = 0; i < 2; ++i) src[i] = 10 * tme + i;
  CHECK(shmem_fcollect(team, dst, src, 2) == 0, "fcollect rc");
  for (int k = 0; k < tn; ++k)
    for (int i = 0; i < 2; ++i) CHECK(dst[2 * k + i] == 10 * k + i, "fcollect dst[%d]", 2 * k + i);
  shmem_fcollectmem(team, idst, isrc, sizeof(int));
  for (int k = 0; k < tn; ++k) CHECK(idst[k] == k, "fcollectmem idst[%d] = %d", k, idst[k]);

  /* alltoall: block j (3 elements) goes to team PE j */
  for (int j = 0; j < tn; ++j)
    for (int i = 0; i < 3; ++i) src[3 * j + i] = 10000 * tme + 100 * j + i;
  CHECK(shmem_long_alltoall(team, dst, src, 3) == 0, "alltoall rc");
  for (int k = 0; k < tn; ++k)
    for (int i = 0; i < 3; ++i)
      CHECK(dst[3 * k + i] == 10000 * k + 100 * tme + i, "alltoall dst[%d] = %ld", 3 * k + i, dst[3 * k + i]);

  /* alltoalls: 2 elements per PE, source stride 3, dest stride 2 */
  for (int i = 0; i < N * 8; ++i) { src[i] = -5; dst[i] = -9; }
  for (int j = 0; j < tn; ++j)
    for (int e = 0; e < 2; ++e) src[(j * 2 + e) * 3] = 1000 * tme + 10 * j + e;
  CHECK(shmem_alltoalls(team, dst, src, 2, 3, 2) == 0, "alltoalls rc");
  for (int k = 0; k < tn; ++k)
    for (int e = 0; e < 2; ++e) {
      CHECK(dst[(k * 2 + e) * 2] == 1000 * k + 10 * tme + e, "alltoalls dst[%d] = %ld", (k * 2 + e) * 2,
            dst[(k * 2 + e) * 2]);
      CHECK(dst[(k * 2 + e) * 2 + 1] == -9, "alltoalls wrote a gap");
    }

  /* reductions */
  unsigned long ul[N], uld[N];
  int si[N], sid[N];
  double d[N], dd[N];
  long double ld[N], ldd[N];
  double _Complex z[N], zd[N];
  float _Complex zf[N], zfd[N];
  int8_t i8[N], i8d[N];
  char c[N], cd[N];
  for (int i = 0; i < N; ++i) {
    ul[i] = 1UL << (tme % 60); si[i] = tme - i; d[i] = tme * 0.5 + i; ld[i] = tme + 0.25L * i;
    z[i] = tme + 1 + 1.0 * I; zf[i] = (float)(i + 1) - 1.0f * I; i8[i] = (int8_t)(tme + 1); c[i] = (char)(tme - 3);
  }
  unsigned long ors = 0, xors = 0;
  int imax = -1000, imin = 1000; double dsum = 0; long double lsum = 0; double _Complex zs = 0, zp = 1;
  int8_t i8and = -1; char cmin = 127;
  for (int k = 0; k < tn; ++k) {
    ors |= 1UL << (k % 60); xors ^= 1UL << (k % 60);
    imax = k > imax ? k : imax; imin = k < imin ? k : imin; dsum += k * 0.5; lsum += k;
    zs += k + 1 + 1.0 * I; zp *= k + 1 + 1.0 * I; i8and &= (int8_t)(k + 1); cmin = (char)(k - 3) < cmin ? (char)(k - 3) : cmin;
  }
  CHECK(shmem_ulong_or_reduce(team, uld, ul, N) == 0, "or_reduce rc");
  for (int i = 0; i < N; ++i) CHECK(uld[i] == ors, "ulong_or_reduce[%d] = %lx, want %lx", i, uld[i], ors);
  shmem_xor_reduce(team, uld, ul, N);
  for (int i = 0; i < N; ++i) CHECK(uld[i] == xors, "generic xor_reduce[%d]", i);
  shmem_ulong_and_reduce(team, uld, ul, N);
  for (int i = 0; i < N; ++i) CHECK(uld[i] == (tn == 1 ? ul[i] : 0UL), "ulong_and_reduce[%d] = %lx", i, uld[i]);
  shmem_and_reduce(team, i8d, i8, N);
  for (int i = 0; i < N; ++i) CHECK(i8d[i] == i8and, "int8 and_reduce[%d] = %d, want %d", i, i8d[i], i8and);
  shmem_int_max_reduce(team, sid, si, N);
  for (int i = 0; i < N; ++i) CHECK(sid[i] == imax - i, "int_max_reduce[%d] = %d", i, sid[i]);
  shmem_min_reduce(team, si, si, N); /* in place */
  for (int i = 0; i < N; ++i) CHECK(si[i] == imin - i, "in-place min_reduce[%d] = %d", i, si[i]);
  shmem_min_reduce(team, cd, c, N);
  for (int i = 0; i < N; ++i) CHECK(cd[i] == cmin, "char min_reduce[%d] = %d, want %d", i, cd[i], cmin);
  shmem_double_sum_reduce(team, dd, d, N);
  for (int i = 0; i < N; ++i) CHECK(dd[i] == dsum + (double)tn * i, "double_sum_reduce[%d] = %g", i, dd[i]);
  shmem_sum_reduce(team, ldd, ld, N);
  for (int i = 0; i < N; ++i)
    CHECK(ldd[i] == lsum + 0.25L * tn * i, "longdouble sum_reduce[%d] = %Lg", i, ldd[i]);
  shmem_longdouble_max_reduce(team, ldd, ld, N);
  for (int i = 0; i < N; ++i) CHECK(ldd[i] == (long double)(tn - 1) + 0.25L * i, "longdouble max[%d]", i);
  shmem_complexd_sum_reduce(team, zd, z, N);
  for (int i = 0; i < N; ++i) CHECK(zd[i] == zs, "complexd_sum_reduce[%d] = %g%+gi", i, creal(zd[i]), cimag(zd[i]));
  shmem_prod_reduce(team, zd, z, N);
  for (int i = 0; i < N; ++i)
    CHECK(cabs(zd[i] - zp) <= 1e-9 * cabs(zp), "complexd prod[%d] = %g%+gi, want %g%+gi", i, creal(zd[i]),
          cimag(zd[i]), creal(zp), cimag(zp));
  shmem_complexf_prod_reduce(team, zfd, zf, N);
  for (int i = 0; i < N; ++i) {
    float _Complex w = 1;
    for (int k = 0; k < tn; ++k) w *= zf[i];
    CHECK(cabsf(zfd[i] - w) <= 1e-4f * cabsf(w), "complexf prod[%d]", i);
  }
  shmem_int_prod_reduce(team, sid, sid, 0); /* nreduce 0 */
  shmem_team_sync(team);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  src = shmem_malloc(N * 8 * sizeof(long));
  dst = shmem_malloc(N * 8 * sizeof(long));
  run(SHMEM_TEAM_WORLD);
  shmem_team_t evens;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens) == 0, "split");
  if (evens != SHMEM_TEAM_INVALID) {
    run(evens);
    shmem_team_destroy(evens);
  }
  shmem_team_t rev;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0, "split reversed");
  run(rev);
  shmem_team_destroy(rev);
  run(SHMEM_TEAM_SHARED);
  shmem_barrier_all();
  shmem_free(src);
  shmem_free(dst);
  if (me == 0) printf("OK team_coll\n");
  shmem_finalize();
  return 0;
}
