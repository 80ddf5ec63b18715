/* Ranks 0 and 1 bounce a message; the other ranks only take part in the barrier. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 20
#define LEN 64

int main(int argc, char **argv)
{
  int rank, size;
  char buf[LEN];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(buf, 0, sizeof buf);
  if (size < 2) {
    if (rank == 0)
      printf("pingpong: needs 2 ranks, have %d\n", size);
  } else if (rank == 0) {
    for (int i = 0; i < ROUNDS; i++) {
      buf[i % LEN] = (char)(i + 1);
      MPI_Send(buf, LEN, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, LEN, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int sum = 0;
    for (int i = 0; i < LEN; i++)
      sum += buf[i];
    printf("pingpong: %d rounds, checksum %d\n", ROUNDS, sum);
  } else if (rank == 1) {
    for (int i = 0; i < ROUNDS; i++) {
      MPI_Recv(buf, LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      buf[(i + 7) % LEN] += 2;
      MPI_Send(buf, LEN, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1)
    printf("pingpong: rank %d of %d done\n", rank, size);
  MPI_Finalize();
  return 0;
}
