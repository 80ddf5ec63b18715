/* A token travels around the ring of ranks LAPS times; each rank adds its rank. */
#include <mpi.h>
#include <stdio.h>

#define LAPS 3

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size;
  int left = (rank + size - 1) % size;
  long token = 0;
  if (size == 1) {
    printf("ring: size 1, nothing to pass\n");
  } else {
    for (int lap = 0; lap < LAPS; lap++) {
      if (rank == 0) {
        token += 1;
        MPI_Send(&token, 1, MPI_LONG, right, lap, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&token, 1, MPI_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token = token * 2 + rank;
        MPI_Send(&token, 1, MPI_LONG, right, lap, MPI_COMM_WORLD);
      }
    }
    if (rank == 0)
      printf("ring: size %d laps %d token %ld\n", size, LAPS, token);
  }
  MPI_Finalize();
  return 0;
}
