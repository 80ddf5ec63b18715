/* Scatter a vector from rank 0, square each element, gather it back. */
#include <mpi.h>
#include <stdio.h>

#define PER 3
#define MAXR 8

int main(int argc, char **argv)
{
  int rank, size;
  int all[MAXR * PER], part[PER], back[MAXR * PER];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    for (int i = 0; i < size * PER; i++)
      all[i] = i + 1;
  MPI_Scatter(all, PER, MPI_INT, part, PER, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < PER; i++)
    part[i] = part[i] * part[i] + rank;
  MPI_Gather(part, PER, MPI_INT, back, PER, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long sum = 0;
    for (int i = 0; i < size * PER; i++)
      sum += (long)back[i] * (i + 1);
    printf("scatter_gather: size %d checksum %ld last %d\n", size, sum, back[size * PER - 1]);
  }
  MPI_Finalize();
  return 0;
}
