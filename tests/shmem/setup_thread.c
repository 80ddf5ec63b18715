/* pes: 1 2 3 4 8 */
/* shmem_init_thread: a level at most the one asked, query_thread agrees, and
 * communication works afterwards. */
#include "check.h"

static int token;

int main(void) {
  check_begin();
  int provided = -1;
  int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
  CHECK_EQ(rc, 0, "shmem_init_thread return");
  CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
        "provided level %d", provided);
  int q = -2;
  shmem_query_thread(&q);
  CHECK_EQ(q, provided, "query_thread after init_thread");
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_int_p(&token, me + 1, (me + 1) % n);
  shmem_barrier_all();
  CHECK_EQ(token, (me + n - 1) % n + 1, "token from the left neighbour");
  return check_finish("setup_thread");
}
