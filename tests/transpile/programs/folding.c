/* Traps for constant propagation and dead-code removal: shadowed names,
   derived locals, short circuits with side effects, switch, while, ?:. */
#include <mpi.h>
#include <stdio.h>

static int calls = 0;
static int touch(int v) { calls++; return v; }

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size;
  int half = size / 2;
  int changed = rank;          /* written below: must not become a constant */
  int out[8] = {0};
  changed += 1;
  if (left == size - 1 && touch(1))
    out[0] = 10;
  if (rank > half || touch(0))
    out[1] = 20;
  {
    int rank = 42;             /* shadows the rank */
    out[2] = rank;
  }
  for (int size = 0; size < 3; size++)  /* shadows the size */
    out[3] += size;
  switch (rank % 3) {
  case 0: out[4] = 1; /* falls through */
  case 1: out[4] += 2; break;
  default: out[4] = -1;
  }
  int n = 0;
  while (rank == 1 && n < 3)
    n++;
  out[5] = n;
  out[6] = rank == 0 ? -7 / 2 : -7 % 3;
  out[7] = changed * 100 + (half << 2) + (size > 2 ? (size - 1) >> 1 : 0);
  for (int r = 0; r < size; r++) {
    if (r == rank)
      printf("folding: rank %d left %d calls %d out %d %d %d %d %d %d %d %d\n", rank, left, calls,
             out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]);
  }
  MPI_Finalize();
  return 0;
}
