/* pes: 2 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
/* Programs that must fail cleanly (interlace only; tests/python/test_shmem.py runs
 * each mode and checks a nonzero exit within bounded time and an error naming the bad
 * value). argv[1] picks the fault:
 *   pe_range     put to PE 1000
 *   nonsymmetric put to a stack address (printed first as "addr <p>")
 *   heap         shmem_malloc beyond SHMEM_SYMMETRIC_SIZE (the runner sets it to 1M)
 *   misaligned   atomic add on a long at an odd address (printed first)
 *   global_exit  PE 0 calls shmem_global_exit(3) while the others wait in a barrier
 *   lost_pe      PE 1 exits at once; PE 0 keeps getting from it */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long target;

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  shmem_init();
  int me = shmem_my_pe();
  long one = 1;
  if (strcmp(mode, "pe_range") == 0) {
    if (me == 0) shmem_long_put(&target, &one, 1, 1000);
  } else if (strcmp(mode, "nonsymmetric") == 0) {
    long local = 0;
    if (me == 0) {
      printf("addr %p\n", (void *)&local);
      shmem_long_put(&local, &one, 1, 1);
    }
  } else if (strcmp(mode, "heap") == 0) {
    void *p = shmem_malloc(2u << 20);
    if (p == NULL) {
      fprintf(stderr, "errors: shmem_malloc(2 MiB) returned NULL\n");
      return 2;
    }
  } else if (strcmp(mode, "misaligned") == 0) {
    char *heap = shmem_malloc(64);
    long *odd = (long *)(heap + 1);
    if (me == 0) {
      printf("addr %p\n", (void *)odd);
      shmem_long_atomic_add(odd, 1, 1);
    }
  } else if (strcmp(mode, "global_exit") == 0) {
    if (me == 0) {
      pause_ms(300); /* the others are blocked in the barrier by now */
      shmem_global_exit(3);
    }
    shmem_barrier_all();
    fprintf(stderr, "errors: PE %d passed the barrier after global_exit\n", me);
    return 0;
  } else if (strcmp(mode, "lost_pe") == 0) {
    shmem_barrier_all();
    if (me == 1) _exit(1);
    for (int i = 0; i < 1000000; ++i) {
      (void)shmem_long_g(&target, 1);
      if (i % 1000 == 999) pause_ms(1);
    }
    fprintf(stderr, "errors: a million gets from a lost PE all returned\n");
    return 0;
  } else {
    fprintf(stderr, "errors: unknown mode '%s'\n", mode);
    return 2;
  }
  shmem_barrier_all();
  /* reaching this point means the fault was not reported */
  if (me == 0) printf("errors: mode %s was not reported\n", mode);
  shmem_finalize();
  return 0;
}
