/* Rank 0 sends each rank a value and collects the answers (MPI_Send/MPI_Recv). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    long total = 0;
    for (int r = 1; r < size; r++) {
      int v = 10 * r + 3;
      MPI_Send(&v, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
    }
    for (int r = 1; r < size; r++) {
      int back;
      MPI_Status st;
      MPI_Recv(&back, 1, MPI_INT, r, 8, MPI_COMM_WORLD, &st);
      printf("sendrecv: from %d got %d (source %d)\n", r, back, st.MPI_SOURCE);
      total += back;
    }
    printf("sendrecv: size %d total %ld\n", size, total);
  } else {
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v = v * rank + (rank % 2 == 0 ? 100 : 200);
    MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
