/* MPI_Bcast from rank 0 and from rank 1 (when there is one); one broadcast sits
   in a helper function, where the transpiler decides the role per variant. */
#include <mpi.h>
#include <stdio.h>

#define N 6

static void share(double *x)
{
  MPI_Bcast(x, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  int rank, size;
  int a[N];
  double x[2] = {0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int second = size > 1 ? 1 : 0;
  for (int i = 0; i < N; i++)
    a[i] = rank == 0 ? i * i : -1;
  MPI_Bcast(a, N, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == second)
    for (int i = 0; i < N; i++)
      a[i] += 1000;
  MPI_Bcast(a, N, MPI_INT, second, MPI_COMM_WORLD);
  if (rank == 0) {
    x[0] = 2.5;
    x[1] = -1.25;
  }
  share(x);
  long sum = 0;
  for (int i = 0; i < N; i++)
    sum += a[i];
  printf("bcast: rank %d sum %ld x %.3f %.3f\n", rank, sum, x[0], x[1]);
  MPI_Finalize();
  return 0;
}
