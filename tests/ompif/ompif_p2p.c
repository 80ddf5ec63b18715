/* OMPIF without a host (every rank a device): send/recv small and above one network
 * frame (several MiB), a message that arrives before its receive is posted, the
 * exact-signature functions through a function pointer, bcast from every root and the
 * in-place allgather (small and rendezvous-sized blocks), checking every element. */
#include <ompif.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static void ring(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  /* Several MiB: many frames on every fabric, rendezvous on p2p. */
  const int n = 3 * 1024 * 1024 / (int)sizeof(double) + 17;
  double* out = malloc(n * sizeof(double));
  double* in = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) out[i] = rank * 1e7 + i;
  if (rank % 2 == 0) {
    OMPIF_Send(out, n, OMPIF_DOUBLE, next, 7, OMPIF_COMM_WORLD);
    OMPIF_Recv(in, n, OMPIF_DOUBLE, prev, 7, OMPIF_COMM_WORLD);
  } else {
    OMPIF_Recv(in, n, OMPIF_DOUBLE, prev, 7, OMPIF_COMM_WORLD);
    OMPIF_Send(out, n, OMPIF_DOUBLE, next, 7, OMPIF_COMM_WORLD);
  }
  for (int i = 0; i < n; ++i) CHECK(in[i] == prev * 1e7 + i, "big[%d] = %g", i, in[i]);
  free(out);
  free(in);
}

static void early_arrival(int rank, int size) {
  if (size < 2 || rank > 1) return;
  if (rank == 0) {
    int a = 11, b = 22;
    OMPIF_Send(&a, 1, OMPIF_INT, 1, 1, OMPIF_COMM_WORLD);
    OMPIF_Send(&b, 1, OMPIF_INT, 1, 2, OMPIF_COMM_WORLD);
    /* A large one whose receive is posted late (its request-to-send waits). */
    int n = 1 << 20;
    int* big = malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) big[i] = i ^ 0x5a5a;
    OMPIF_Send(big, n, OMPIF_INT, 1, 3, OMPIF_COMM_WORLD);
    free(big);
  } else {
    int a = 0, b = 0;
    /* Tag 1 arrived first but is received second. */
    OMPIF_Recv(&b, 1, OMPIF_INT, 0, 2, OMPIF_COMM_WORLD);
    OMPIF_Recv(&a, 1, OMPIF_INT, 0, 1, OMPIF_COMM_WORLD);
    CHECK(a == 11 && b == 22, "a=%d b=%d", a, b);
    usleep(200 * 1000);
    int n = 1 << 20;
    int* big = malloc(n * sizeof(int));
    OMPIF_Recv(big, n, OMPIF_INT, 0, 3, OMPIF_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(big[i] == (i ^ 0x5a5a), "late[%d] = %d", i, big[i]);
    free(big);
  }
}

static void exact_signatures(int rank, int size) {
  if (size < 2 || rank > 1) return;
  void (*send)(const void*, int, OMPIF_Datatype, int, uint8_t, OMPIF_Comm) = OMPIF_Send;
  float f = 2.5f;
  if (rank == 0) {
    send(&f, 1, OMPIF_FLOAT, 1, 255, OMPIF_COMM_WORLD);
  } else {
    float g = 0;
    (OMPIF_Recv)(&g, 1, OMPIF_FLOAT, 0, 255, OMPIF_COMM_WORLD);
    CHECK(g == 2.5f, "g=%g", g);
  }
}

static void bcast(int rank, int size) {
  for (int root = 0; root < size; ++root) {
    long v[5];
    for (int i = 0; i < 5; ++i) v[i] = rank == root ? root * 100 + i : -1;
    OMPIF_Bcast(v, 5, OMPIF_LONG, root, OMPIF_COMM_WORLD);
    for (int i = 0; i < 5; ++i) CHECK(v[i] == root * 100 + i, "root %d v[%d]=%ld", root, i, v[i]);
  }
}

static void allgather(int rank, int size, int count) {
  int* data = malloc((size_t)size * count * sizeof(int));
  for (int i = 0; i < size * count; ++i) data[i] = -1;
  for (int i = 0; i < count; ++i) data[rank * count + i] = rank * 1000003 + i;
  OMPIF_Allgather(data, count, OMPIF_INT, OMPIF_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < count; ++i)
      CHECK(data[r * count + i] == r * 1000003 + i, "count %d block %d [%d] = %d", count, r, i,
            data[r * count + i]);
  free(data);
}

int main(void) {
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD);
  int size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  CHECK(rank >= 0 && rank < size, "rank %d size %d", rank, size);
  if (size > 1) ring(rank, size);
  early_arrival(rank, size);
  exact_signatures(rank, size);
  bcast(rank, size);
  allgather(rank, size, 1);
  allgather(rank, size, 3);
  allgather(rank, size, 100000); /* 400 KB blocks: rendezvous */
  printf("OK ompif_p2p rank %d\n", rank);
  return 0;
}
