/* pes: 1 2 3 4 8 */
/* Setup and query: my_pe/n_pes, info_get_version/name, pe_accessible,
 * addr_accessible, shmem_ptr, query_thread. */
#include "check.h"

static int seen[64];  /* seen[p] = 1 + p once PE p has put into it */
static long g_static = 5;

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(n >= 1 && n <= 64, "n_pes %d out of 1..64", n);
  CHECK(me >= 0 && me < n, "my_pe %d not in 0..%d", me, n - 1);

  /* every PE has a distinct number: each marks its slot on every PE */
  for (int p = 0; p < n; ++p) shmem_int_p(&seen[me], 1 + me, p);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) CHECK_EQ(seen[p], 1 + p, "slot written by PE p");

  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  CHECK_EQ(major, SHMEM_MAJOR_VERSION, "info_get_version major");
  CHECK_EQ(minor, SHMEM_MINOR_VERSION, "info_get_version minor");
  CHECK(major == 1 && minor >= 4, "version %d.%d, want 1.4 or later", major, minor);

  char name[SHMEM_MAX_NAME_LEN];
  memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  size_t len = strnlen(name, sizeof name);
  CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "info_get_name length %zu", len);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name '%s' != SHMEM_VENDOR_STRING '%s'",
        name, SHMEM_VENDOR_STRING);

  for (int p = 0; p < n; ++p) CHECK_EQ(shmem_pe_accessible(p), 1, "pe_accessible(existing PE)");
  CHECK_EQ(shmem_pe_accessible(n), 0, "pe_accessible(n_pes)");
  CHECK_EQ(shmem_pe_accessible(-1), 0, "pe_accessible(-1)");

  long *heap = shmem_malloc(4 * sizeof(long));
  CHECK(heap != NULL, "shmem_malloc(32) returned NULL");
  long on_stack = 0;
  for (int p = 0; p < n; ++p) {
    CHECK_EQ(shmem_addr_accessible(&g_static, p), 1, "addr_accessible(static global)");
    CHECK_EQ(shmem_addr_accessible(heap, p), 1, "addr_accessible(heap)");
    CHECK_EQ(shmem_addr_accessible(heap + 3, p), 1, "addr_accessible(heap + 3)");
  }
  CHECK_EQ(shmem_addr_accessible(&on_stack, me), 0, "addr_accessible(stack variable)");

  /* shmem_ptr to oneself is the object itself */
  long *self = shmem_ptr(heap, me);
  CHECK(self == heap, "shmem_ptr(heap, my_pe) = %p, want %p", (void *)self, (void *)heap);
  heap[0] = 0;
  shmem_barrier_all();
  /* where shmem_ptr gives another PE's memory, a store through it is a put */
  int right = (me + 1) % n;
  long *there = shmem_ptr(heap, right);
  if (there) *there = 100 + me;
  else shmem_long_p(heap, 100 + me, right);
  shmem_barrier_all();
  CHECK_EQ(heap[0], 100 + (me + n - 1) % n, "value stored by the left neighbour");

  int level = -1;
  shmem_query_thread(&level);
  CHECK(level == SHMEM_THREAD_SINGLE || level == SHMEM_THREAD_FUNNELED ||
            level == SHMEM_THREAD_SERIALIZED || level == SHMEM_THREAD_MULTIPLE,
        "query_thread gave %d", level);

  shmem_free(heap);
  return check_finish("setup");
}
