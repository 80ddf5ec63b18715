/* Jacobi-2D in the shape of ZRLMPI's Listing 5: rank 0 holds the grid, scatters
   row blocks, sends every rank its two halo rows, and gathers the new blocks. */
#include <mpi.h>
#include <stdio.h>

#define DIM 16
#define LOCAL 4
#define MAXR 8
#define ITERS 6

int grid[MAXR * LOCAL][DIM];

int main(int argc, char **argv)
{
  int rank, size;
  int local_grid[LOCAL + 2][DIM];
  int local_new[LOCAL + 2][DIM];
  MPI_Status status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rows = size * LOCAL;
  int first = rank * LOCAL;
  if (rank == 0)
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < DIM; j++)
        grid[i][j] = (i == 0 || j == 0 || i == rows - 1 || j == DIM - 1) ? 1000 : (i * 7 + j * 3) % 50;
  for (int l = 0; l < ITERS; l++) {
    MPI_Scatter(&grid[0][0], LOCAL * DIM, MPI_INT, &local_grid[1][0], LOCAL * DIM, MPI_INT, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
      for (int r = 1; r < size; r++) {
        int top = r * LOCAL - 1;
        int bottom = (r + 1) * LOCAL;
        if (bottom > rows - 1)
          bottom = rows - 1;
        MPI_Send(&grid[top][0], DIM, MPI_INT, r, 0, MPI_COMM_WORLD);
        MPI_Send(&grid[bottom][0], DIM, MPI_INT, r, 0, MPI_COMM_WORLD);
      }
      for (int j = 0; j < DIM; j++) {
        local_grid[0][j] = grid[0][j];
        local_grid[LOCAL + 1][j] = grid[LOCAL < rows - 1 ? LOCAL : rows - 1][j];
      }
    } else {
      MPI_Recv(&local_grid[0][0], DIM, MPI_INT, 0, 0, MPI_COMM_WORLD, &status);
      MPI_Recv(&local_grid[LOCAL + 1][0], DIM, MPI_INT, 0, 0, MPI_COMM_WORLD, &status);
    }
    for (int i = 1; i < LOCAL + 1; i++) {
      for (int j = 0; j < DIM; j++) {
        int gi = first + i - 1;
        if (gi == 0 || gi == rows - 1 || j == 0 || j == DIM - 1)
          local_new[i][j] = local_grid[i][j];
        else
          local_new[i][j] = (local_grid[i][j - 1] + local_grid[i][j + 1] + local_grid[i - 1][j] +
                             local_grid[i + 1][j]) / 4;
      }
    }
    MPI_Gather(&local_new[1][0], LOCAL * DIM, MPI_INT, &grid[0][0], LOCAL * DIM, MPI_INT, 0,
               MPI_COMM_WORLD);
  }
  if (rank == 0) {
    long sum = 0;
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < DIM; j++)
        sum += (long)grid[i][j] * (i + 1) * (j + 3);
    printf("jacobi2d: %d ranks %dx%d %d iterations checksum %ld\n", size, rows, DIM, ITERS, sum);
  }
  MPI_Finalize();
  return 0;
}
