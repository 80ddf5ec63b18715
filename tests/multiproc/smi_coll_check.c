/* The SMI streaming collectives in real processes, run by tests/python/test_stream_coll.py:
 *   interlace run -n N smi_coll_check
 * Every root; bcast, reduce (ADD, MAX, MIN on int and float), scatter and gather;
 * a bcast and a reduce interleaved on two ports; consecutive collectives on one port.
 * Prints "smi_coll_check OK on N ranks" from rank 0 when everything passed. */
#include <smi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0, rank, size;
#define CHECK(cond, ...)                                 \
  do {                                                   \
    if (!(cond)) {                                       \
      fprintf(stderr, "smi_coll_check rank %d: ", rank); \
      fprintf(stderr, __VA_ARGS__);                      \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
      ++failures;                                        \
    }                                                    \
  } while (0)

static int val(int r, int i) { return i * 3 + r * 100000 + 1; }

static void bcast(int n, int root, int port) {
  SMI_BChannel ch = SMI_Open_bcast_channel(n, SMI_INT, port, root, SMI_COMM_WORLD);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int x = rank == root ? val(root, i) : -1;
    SMI_Bcast(&ch, &x);
    bad += x != val(root, i);
  }
  CHECK(bad == 0, "bcast root %d: %d wrong of %d", root, bad, n);
}

static void reduce(int n, int root, int port, SMI_Op op) {
  SMI_RChannel ch = SMI_Open_reduce_channel(n, SMI_INT, op, port, root, SMI_COMM_WORLD);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int x = val(rank, i) * (i % 2 ? -1 : 1), y = 0, want = val(0, i) * (i % 2 ? -1 : 1);
    SMI_Reduce(&ch, &x, &y);
    for (int r = 1; r < size; ++r) {
      int c = val(r, i) * (i % 2 ? -1 : 1);
      want = op == SMI_ADD ? want + c : op == SMI_MAX ? (c > want ? c : want) : (c < want ? c : want);
    }
    if (rank == root) bad += y != want;
  }
  CHECK(bad == 0, "reduce op %d root %d: %d wrong of %d", (int)op, root, bad, n);
}

static void reduce_float(int n, int root) {
  SMI_RChannel ch = SMI_Open_reduce_channel(n, SMI_FLOAT, SMI_ADD, 7, root, SMI_COMM_WORLD);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float x = (float)(rank + 1) * 0.5f + (float)i, y = 0, want = 0.5f + (float)i;
    SMI_Reduce(&ch, &x, &y);
    for (int r = 1; r < size; ++r) want += (float)(r + 1) * 0.5f + (float)i;
    if (rank == root) bad += y != want;
  }
  CHECK(bad == 0, "float reduce root %d: %d wrong", root, bad);
}

static void scatter(int n, int root, int port) {
  SMI_ScatterChannel ch = SMI_Open_scatter_channel(n, n, SMI_INT, port, root, SMI_COMM_WORLD);
  int calls = rank == root ? n * size : n, bad = 0, got = 0;
  for (int j = 0; j < calls; ++j) {
    int x = rank == root ? val(j / n, j % n) : 0, y = -1;
    SMI_Scatter(&ch, &x, &y);
    /* At the root only the calls of its own part write y. */
    if (rank != root || j / n == root) bad += y != val(rank, got++);
  }
  CHECK(bad == 0 && got == n, "scatter root %d: %d wrong, %d received of %d", root, bad, got, n);
}

static void gather(int n, int root, int port) {
  SMI_GatherChannel ch = SMI_Open_gather_channel(n, n, SMI_INT, port, root, SMI_COMM_WORLD);
  int calls = rank == root ? n * size : n, bad = 0, mine = 0;
  for (int j = 0; j < calls; ++j) {
    int own = rank != root || j / n == root;
    int x = own ? val(rank, mine++) : 0, y = -1;
    SMI_Gather(&ch, &x, &y);
    if (rank == root) bad += y != val(j / n, j % n);
  }
  CHECK(bad == 0, "gather root %d: %d wrong of %d", root, bad, n * size);
}

static void two_ports(int n) {
  SMI_BChannel b = SMI_Open_bcast_channel(n, SMI_INT, 20, 0, SMI_COMM_WORLD);
  SMI_RChannel r = SMI_Open_reduce_channel(n, SMI_INT, SMI_ADD, 21, size - 1, SMI_COMM_WORLD);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int x = rank == 0 ? val(0, i) : 0, y = 0;
    SMI_Bcast(&b, &x);
    SMI_Reduce(&r, &x, &y);
    if (rank == size - 1) bad += y != size * val(0, i);
  }
  CHECK(bad == 0, "bcast+reduce on two ports: %d wrong", bad);
}

int main(int argc, char** argv) {
  SMI_Init(&argc, &argv);
  rank = SMI_Comm_rank(SMI_COMM_WORLD);
  size = SMI_Comm_size(SMI_COMM_WORLD);
  for (int root = 0; root < size; ++root) {
    bcast(100000, root, 1);
    reduce(50000, root, 2, SMI_ADD);
    reduce(5000, root, 2, SMI_MAX);
    reduce(5000, root, 2, SMI_MIN);
    reduce_float(5000, root);
    scatter(20000, root, 3);
    gather(20000, root, 4);
  }
  two_ports(100000);
  for (int round = 0; round < 20; ++round) {  /* one port, changing kinds and roots */
    bcast(10 + round, round % size, 9);
    reduce(10 + round, (round + 1) % size, 9, SMI_ADD);
    scatter(10 + round, round % size, 9);
    gather(10 + round, (round + 1) % size, 9);
  }
  int total = 0;
  SMI_RChannel f = SMI_Open_reduce_channel(1, SMI_INT, SMI_ADD, 99, 0, SMI_COMM_WORLD);
  SMI_Reduce(&f, &failures, &total);
  if (rank == 0 && total == 0) printf("smi_coll_check OK on %d ranks\n", size);
  SMI_Finalize();
  return total != 0 || failures != 0;
}
