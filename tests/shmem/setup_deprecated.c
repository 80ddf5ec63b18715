/* pes: 1 2 3 4 8 */
/* The deprecated start-up names: start_pes, _my_pe, _num_pes, shmalloc/shfree
 * and the _SHMEM_* constants. No shmem_finalize: old programs just return. */
#include <shmem.h>
#include <stdio.h>

static int token;

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  start_pes(0);
  int me = _my_pe(), n = _num_pes(), bad = 0;
  if (me != shmem_my_pe() || n != shmem_n_pes()) {
    fprintf(stderr, "FAIL pe %d: _my_pe %d _num_pes %d vs %d %d\n", me, me, n,
            shmem_my_pe(), shmem_n_pes());
    bad = 1;
  }
  int *buf = shmalloc(8 * sizeof(int));
  if (!buf) { fprintf(stderr, "FAIL pe %d: shmalloc returned NULL\n", me); return 1; }
  shmem_int_p(&token, me + 1, (me + 1) % n);
  shmem_int_p(&buf[1], me + 7, (me + 1) % n);
  shmem_barrier_all();
  int left = (me + n - 1) % n;
  if (token != left + 1 || buf[1] != left + 7) {
    fprintf(stderr, "FAIL pe %d: token %d buf %d, want %d %d\n", me, token, buf[1], left + 1,
            left + 7);
    bad = 1;
  }
  if (_SHMEM_CMP_EQ != SHMEM_CMP_EQ || _SHMEM_SYNC_VALUE != SHMEM_SYNC_VALUE ||
      _SHMEM_BCAST_SYNC_SIZE != SHMEM_BCAST_SYNC_SIZE) {
    fprintf(stderr, "FAIL: _SHMEM_* constants differ from SHMEM_*\n");
    bad = 1;
  }
  shfree(buf);
  shmem_barrier_all();
  if (me == 0 && !bad) printf("OK setup_deprecated\n");
  return bad;
}
