/* Listing 1 of the OmpSs@cloudFPGA paper: the host scatters a and gathers b; every
 * device spawns a local task per block of four (in a, out b), waits, sends its b to
 * the next device and receives the previous device's into a, computes again. The host
 * checks b = f(f(a of the previous device)). Run with --devices P. */
#include <interlace/tasks.h>
#include <ompif.h>
#include <string.h>

#include "check.h"

enum { NBLOCKS = 6, BS = 4 };

static int f(int x) { return 3 * x + 1; }

struct block { int* a; int* b; };

static void fpga_comp_code(void* p) {
  struct block* blk = p;
  for (int i = 0; i < BS; ++i) blk->b[i] = f(blk->a[i]);
}

static void spawn_blocks(int* a, int* b, int nblocks, struct block* blks) {
  for (int i = 0; i < nblocks; ++i) {
    blks[i].a = a + i * BS;
    blks[i].b = b + i * BS;
    il_task_dep_t deps[2] = {{a + i * BS, sizeof(int) * BS, IL_TASK_IN},
                             {b + i * BS, sizeof(int) * BS, IL_TASK_OUT}};
    CHECK(il_task_spawn(fpga_comp_code, &blks[i], deps, 2, 0) == 0, "%s", il_task_last_error());
  }
  CHECK(il_task_wait() == 0, "%s", il_task_last_error());
}

static void fpga_creator_code(void* const* regions, const void* args, size_t n) {
  int nblocks;
  CHECK(n == sizeof nblocks, "args %zu", n);
  memcpy(&nblocks, args, sizeof nblocks);
  int* a = regions[0];
  int* b = regions[1];
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD);
  int size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  struct block* blks = malloc(sizeof(struct block) * nblocks);
  spawn_blocks(a, b, nblocks, blks);
  /* As in the paper: send first (small messages go eagerly), then receive. */
  OMPIF_Send(b, nblocks * BS, OMPIF_INT, (rank + 1) % size, 0, OMPIF_COMM_WORLD);
  OMPIF_Recv(a, nblocks * BS, OMPIF_INT, (size + rank - 1) % size, 0, OMPIF_COMM_WORLD);
  spawn_blocks(a, b, nblocks, blks);
  free(blks);
}

int main(void) {
  il_dist_register("fpga_creator_code", fpga_creator_code);
  if (il_dist_init() != 1) return 0;
  int nnodes = nanos6_dist_num_devices(), nblocks = NBLOCKS;
  size_t n = (size_t)nblocks * BS * nnodes;
  int* a = malloc(n * sizeof(int));
  int* b = malloc(n * sizeof(int));
  for (size_t i = 0; i < n; ++i) a[i] = (int)i - 50, b[i] = -1;
  il_dist_clause_t cl[] = {{IL_DIST_SCATTER, a, n * sizeof(int), 0},
                           {IL_DIST_GATHER, b, n * sizeof(int), 0}};
  CHECK(il_dist_spawn("fpga_creator_code", cl, 2, &nblocks, sizeof nblocks) == 0, "%s",
        il_dist_error_message());
  CHECK(il_dist_taskwait() == 0, "%s", il_dist_error_message());
  size_t chunk = (size_t)nblocks * BS;
  for (int r = 0; r < nnodes; ++r) {
    int prev = (r + nnodes - 1) % nnodes;
    for (size_t i = 0; i < chunk; ++i) {
      int want = f(f(a[prev * chunk + i]));
      CHECK(b[r * chunk + i] == want, "device %d [%zu] = %d, want %d", r, i, b[r * chunk + i],
            want);
    }
  }
  il_dist_finalize();
  printf("OK dist_listing1 %d devices\n", nnodes);
  free(a);
  free(b);
  return 0;
}
