/* MPI_Reduce of int and double vectors (sum, max, min, prod) to the last rank. */
#include <mpi.h>
#include <stdio.h>

#define N 5

int main(int argc, char **argv)
{
  int rank, size;
  int v[N], s[N], mx[N];
  double d[N], ds[N], dm[N];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = size - 1;
  for (int i = 0; i < N; i++) {
    v[i] = (rank + 1) * (i + 2) - 3 * (rank % 3);
    d[i] = 0.5 * (rank + i);  /* exact in binary: any summation order gives the same */
  }
  MPI_Reduce(v, s, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  MPI_Reduce(v, mx, N, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
  MPI_Reduce(d, ds, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  MPI_Reduce(d, dm, N, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == root)
    for (int i = 0; i < N; i++)
      printf("reduce: i %d sum %d max %d dsum %.2f\n", i, s[i], mx[i], ds[i]);
  if (rank == 0)
    printf("reduce: dmin %.2f %.2f\n", dm[0], dm[N - 1]);
  MPI_Finalize();
  return 0;
}
