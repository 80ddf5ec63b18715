/* pes: 1 2 3 4 8 */
/* Symmetric memory: malloc/calloc/align/realloc/free, malloc(0) is NULL, the same
 * object sits at the same offset on every PE, calloc zeroes, realloc keeps data,
 * malloc_with_hints (1.5). */
#include "check.h"

#define SLOTS 64

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;

#if !SHMEM_TEST_OSHMEM /* OSHMEM 4.1 returns a non-NULL block for 0 bytes, against the spec */
  CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
#endif

  /* symmetric offsets: the distance between two allocations is the same on every PE,
   * gathered on every PE into a third one */
  char *a = shmem_malloc(100);
  long *b = shmem_malloc(1000 * sizeof(long));
  long *offs = shmem_malloc(SLOTS * sizeof(long));
  CHECK(a && b && offs, "shmem_malloc returned NULL");
  long mine = (long)((char *)b - a);
  for (int p = 0; p < n; ++p) shmem_long_p(&offs[me], mine, p);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) CHECK_EQ(offs[p], mine, "offset b - a on PE p vs mine");

  /* a put through each allocation lands in the neighbour's same object */
  for (int i = 0; i < 1000; ++i) b[i] = -1;
  shmem_barrier_all();
  long src[1000];
  for (int i = 0; i < 1000; ++i) src[i] = me * 10000 + i;
  shmem_long_put(b, src, 1000, right);
  shmem_barrier_all();
  for (int i = 0; i < 1000; ++i)
    if (b[i] != left * 10000 + i) { CHECK_EQ(b[i], left * 10000 + i, "b[i] from left"); break; }

  /* calloc zeroes memory that held data before */
  shmem_free(b);
  long *c = shmem_calloc(1000, sizeof(long));
  CHECK(c != NULL, "shmem_calloc returned NULL");
  for (int i = 0; c && i < 1000; ++i)
    if (c[i] != 0) { CHECK_EQ(c[i], 0, "calloc'd word"); break; }
  shmem_barrier_all();  /* nobody puts into c before everyone checked it */
  shmem_long_p(&c[999], me + 1, right);
  shmem_barrier_all();
  CHECK_EQ(c[999], left + 1, "put into calloc'd memory");

  /* align: the address is a multiple and still symmetric */
  size_t aligns[] = {8, 64, 4096};
  for (int k = 0; k < 3; ++k) {
    int *al = shmem_align(aligns[k], 3 * sizeof(int));
    CHECK(al && (uintptr_t)al % aligns[k] == 0, "shmem_align(%zu) gave %p", aligns[k], (void *)al);
    if (!al) continue;
    shmem_int_p(&al[2], 7 + me, right);
    shmem_barrier_all();
    CHECK_EQ(al[2], 7 + left, "put into aligned memory");
    shmem_free(al);
  }

  /* realloc grows and shrinks keeping the prefix */
  int *r = shmem_malloc(10 * sizeof(int));
  for (int i = 0; i < 10; ++i) r[i] = me * 100 + i;
  shmem_barrier_all();
  r = shmem_realloc(r, 100000 * sizeof(int));
  CHECK(r != NULL, "shmem_realloc grow returned NULL");
  for (int i = 0; r && i < 10; ++i) CHECK_EQ(r[i], me * 100 + i, "realloc'd (grown) prefix");
  shmem_int_p(&r[99999], me, right);
  shmem_barrier_all();
  CHECK_EQ(r[99999], left, "put at the end of the grown block");
  r = shmem_realloc(r, 5 * sizeof(int));
  for (int i = 0; r && i < 5; ++i) CHECK_EQ(r[i], me * 100 + i, "realloc'd (shrunk) prefix");
  shmem_free(r);

  /* many allocations and frees in a different order stay symmetric */
  void *many[16];
  for (int i = 0; i < 16; ++i) many[i] = shmem_malloc((size_t)(i + 1) * 24);
  for (int i = 0; i < 16; i += 2) shmem_free(many[i]);
  double *d = shmem_malloc(16 * sizeof(double));
  mine = (long)((char *)d - a);
  for (int p = 0; p < n; ++p) shmem_long_p(&offs[me], mine, p);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) CHECK_EQ(offs[p], mine, "offset d - a after frees, PE p");
  for (int i = 1; i < 16; i += 2) shmem_free(many[i]);
  shmem_free(d);
  shmem_free(NULL);  /* a no-op, but collective like every free */

#if SHMEM_TEST_15
  long *h = shmem_malloc_with_hints(8 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
  CHECK(h != NULL, "malloc_with_hints(ATOMICS_REMOTE) returned NULL");
  h[0] = 0;
  shmem_barrier_all();
  shmem_long_atomic_add(&h[0], me + 1, 0);
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(h[0], (long)n * (n + 1) / 2, "atomic sum into hinted memory");
  shmem_free(h);
  long *h2 = shmem_malloc_with_hints(16, 0);
  CHECK(h2 != NULL, "malloc_with_hints(0) returned NULL");
  shmem_free(h2);
  CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_SIGNAL_REMOTE) == NULL,
        "malloc_with_hints(0 bytes) is not NULL");
#endif
  shmem_free(a);
  shmem_free(c);
  shmem_free(offs);
  return check_finish("memory");
}
