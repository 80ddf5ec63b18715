/* Jacobi-2D in the shape of ZRLMPI's Listing 5 (docs/cluster.md): an integer
 * DIM x DIM grid held by rank 0 is scattered by rows every iteration, the
 * halo rows go out from rank 0 as explicit sends, every rank computes its
 * rows, and the new rows are gathered back to rank 0.
 *
 * An ordinary MPI program: it runs as it is (`interlace run -n N jacobi2d`)
 * and transpiled per rank (`interlace run --cluster FILE jacobi2d.c`).
 * DIM is a compile-time size (-DDIM=256), as ZRLMPIcc needs buffer sizes to
 * be; the iterations come from -DITERS or the first argument. The number of
 * ranks must divide DIM. Rank 0 prints one line:
 *   jacobi2d dim=D ranks=N iters=I checksum=C ms_per_iter=T
 * where the checksum weighs every cell by its position, so two runs print the
 * same checksum only if their final grids are equal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef DIM
#define DIM 64
#endif
#ifndef ITERS
#define ITERS 10
#endif
#define TAG_HALO 0

/* Rank 0 holds the whole grid; the local arrays are sized for the largest
 * block (one rank) plus the two halo rows, so any divisor of DIM fits. */
static int grid[DIM][DIM];
static int local_grid[DIM + 2][DIM];
static int local_new[DIM + 2][DIM];

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void init_grid(void) {
  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++) {
      if (i == 0)
        grid[i][j] = 1000;                 /* the hot edge */
      else if (i == DIM - 1 || j == 0 || j == DIM - 1)
        grid[i][j] = 0;
      else
        grid[i][j] = (i * 31 + j * 17) % 97;  /* something for the stencil to smooth */
    }
}

static unsigned long long checksum(void) {
  unsigned long long sum = 0;
  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++)
      sum += (unsigned long long)(i * DIM + j + 1) * (unsigned long long)grid[i][j];
  return sum;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Status status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int iters = ITERS;
  if (argc > 1)
    iters = atoi(argv[1]);
  if (DIM % size != 0 || iters < 1) {
    if (rank == 0)
      fprintf(stderr, "jacobi2d: %d ranks do not divide DIM=%d, or iterations %d < 1\n",
              size, DIM, iters);
    MPI_Finalize();
    return 2;
  }
  int local_dim = DIM / size;
  int first_row = rank * local_dim;  /* global index of local row 1 */
  if (rank == 0)
    init_grid();

  double total_ms = 0;
  for (int l = 0; l < iters; l++) {
    double t0 = now_ms();
    MPI_Scatter(&grid[0][0], local_dim * DIM, MPI_INT, &local_grid[1][0], local_dim * DIM,
                MPI_INT, 0, MPI_COMM_WORLD);
    /* halo rows, all from rank 0's copy of the grid */
    if (rank == 0) {
      for (int r = 1; r < size; r++) {
        int above = r * local_dim - 1;
        int below = (r + 1) * local_dim;
        if (below > DIM - 1)
          below = DIM - 1;  /* the last block has no row below; it keeps its boundary */
        MPI_Send(&grid[above][0], DIM, MPI_INT, r, TAG_HALO, MPI_COMM_WORLD);
        MPI_Send(&grid[below][0], DIM, MPI_INT, r, TAG_HALO, MPI_COMM_WORLD);
      }
      if (size > 1)
        for (int j = 0; j < DIM; j++)
          local_grid[local_dim + 1][j] = grid[local_dim][j];
    } else {
      MPI_Recv(&local_grid[0][0], DIM, MPI_INT, 0, TAG_HALO, MPI_COMM_WORLD, &status);
      MPI_Recv(&local_grid[local_dim + 1][0], DIM, MPI_INT, 0, TAG_HALO, MPI_COMM_WORLD,
               &status);
    }
    for (int i = 1; i <= local_dim; i++) {
      int g = first_row + i - 1;
      for (int j = 0; j < DIM; j++) {
        if (g == 0 || g == DIM - 1 || j == 0 || j == DIM - 1)
          local_new[i][j] = local_grid[i][j];
        else
          local_new[i][j] = (local_grid[i][j - 1] + local_grid[i][j + 1] +
                             local_grid[i - 1][j] + local_grid[i + 1][j]) / 4;
      }
    }
    MPI_Gather(&local_new[1][0], local_dim * DIM, MPI_INT, &grid[0][0], local_dim * DIM,
               MPI_INT, 0, MPI_COMM_WORLD);
    total_ms += now_ms() - t0;
  }

  if (rank == 0) {
    printf("jacobi2d dim=%d ranks=%d iters=%d checksum=%llu ms_per_iter=%.3f\n", DIM, size,
           iters, checksum(), total_ms / iters);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
