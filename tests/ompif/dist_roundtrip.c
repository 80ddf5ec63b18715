/* Distributed tasks, host and P devices (interlace run --devices P): scatter, gather,
 * broadcast, send to the last device and receive from device 0 in one task, OMPIF
 * among the devices inside it, repeated so that commands stay in order; the host checks
 * every element. */
#include <ompif.h>
#include <string.h>

#include "check.h"

enum { N = 1000, K = 7, S = 5, R = 3 };

struct args { int n, k, s, round; };

static void roundtrip(void* const* regions, const void* argp, size_t size) {
  struct args a;
  CHECK(size == sizeof a, "args size %zu", size);
  memcpy(&a, argp, sizeof a);
  const int* in = regions[0];
  int* out = regions[1];
  const int* bc = regions[2];
  const int* sent = regions[3];
  int* back = regions[4];
  int dev = OMPIF_Comm_rank(OMPIF_COMM_WORLD), ndev = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  CHECK(dev == il_dist_device(), "OMPIF rank %d, device %d", dev, il_dist_device());
  CHECK((sent != NULL) == (dev == ndev - 1), "send region on device %d", dev);
  CHECK((back != NULL) == (dev == 0), "receive region on device %d", dev);
  for (int i = 0; i < a.n; ++i)
    out[i] = 2 * in[i] + bc[i % a.k] + (sent ? sent[i % a.s] : 0) + a.round;
  /* The devices talk among themselves. */
  int* all = calloc(ndev, sizeof(int));
  all[dev] = dev * 10 + a.round;
  OMPIF_Allgather(all, 1, OMPIF_INT, OMPIF_COMM_WORLD);
  if (back)
    for (int i = 0; i < R; ++i) back[i] = all[(i + 1) % ndev] + 1000 * i;
  free(all);
}

int main(void) {
  il_dist_register("roundtrip", roundtrip);
  if (il_dist_init() != 1) return 0; /* a device: served the host, done */
  int ndev = nanos6_dist_num_devices();
  CHECK(ndev >= 1, "%d devices", ndev);
  int* in = malloc(sizeof(int) * N * ndev);
  int* out = malloc(sizeof(int) * N * ndev);
  int bc[K], sent[S], back[R];
  for (int i = 0; i < N * ndev; ++i) in[i] = i * 3 + 1;
  for (int i = 0; i < K; ++i) bc[i] = 100 + i;
  for (int i = 0; i < S; ++i) sent[i] = 10000 * (i + 1);
  for (int round = 0; round < 3; ++round) {
    memset(out, 0xff, sizeof(int) * N * ndev);
    memset(back, 0xff, sizeof back);
    struct args a = {N, K, S, round};
    il_dist_clause_t cl[] = {
        {IL_DIST_SCATTER, in, sizeof(int) * N * ndev, 0},
        {IL_DIST_GATHER, out, sizeof(int) * N * ndev, 0},
        {IL_DIST_BROADCAST, bc, sizeof bc, 0},
        {IL_DIST_SEND, sent, sizeof sent, ndev - 1},
        {IL_DIST_RECEIVE, back, sizeof back, 0},
    };
    CHECK(il_dist_spawn("roundtrip", cl, 5, &a, sizeof a) == 0, "%s", il_dist_error_message());
    CHECK(il_dist_taskwait() == 0, "%s", il_dist_error_message());
    for (int d = 0; d < ndev; ++d)
      for (int i = 0; i < N; ++i) {
        int want = 2 * in[d * N + i] + bc[i % K] + (d == ndev - 1 ? sent[i % S] : 0) + round;
        CHECK(out[d * N + i] == want, "round %d device %d [%d] = %d, want %d", round, d, i,
              out[d * N + i], want);
      }
    for (int i = 0; i < R; ++i) {
      int want = ((i + 1) % ndev) * 10 + round + 1000 * i;
      CHECK(back[i] == want, "round %d back[%d] = %d, want %d", round, i, back[i], want);
    }
  }
  CHECK(il_dist_finalize() == 0, "%s", il_dist_error_message());
  printf("OK dist_roundtrip %d devices\n", ndev);
  free(in);
  free(out);
  return 0;
}
