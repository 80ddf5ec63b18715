/* ZRLMPI's Jacobi-2D (section V-B, Table I) over mpi.h, in virtual time on the sim
 * fabric's cloudfpga preset: rank 0 (the CPU of the ReH2PC cluster) holds the DIM x DIM
 * grid of ints, scatters it by rows every iteration, sends each block's two halo rows,
 * the ranks update their rows (charged at --rate cells per second: the FPGA stencil
 * kernel) and rank 0 gathers the rows back, as ZRLMPI's Listing 5 does.
 * --tree K: scatter and gather go through K distributing ranks (ZRLMPIcc's tree
 * optimisation, Fig. 5): rank 0 talks only to them, each forwards its group's rows.
 * Time per iteration on rank 0; one JSON line. */
#include <mpi.h>

#include "fid_common.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long dim = fid_opt_long(argc, argv, "--dim", 256);
  const long iters = fid_opt_long(argc, argv, "--iters", 3);
  const long tree = fid_opt_long(argc, argv, "--tree", 0);
  const double rate = fid_opt_double(argc, argv, "--rate", 156.25e6);
  if (dim < 2 || dim > 8192 || dim % size || iters < 1 || rate <= 0 || tree < 0 || tree >= size ||
      (tree && (size - 1) % tree)) {
    if (rank == 0)
      fprintf(stderr, "zrlmpi_jacobi: --dim %ld must be a multiple of the %d ranks, --iters %ld >= 1, --tree %ld must "
              "divide the %d workers\n", dim, size, iters, tree, size - 1);
    MPI_Finalize();
    return 2;
  }
  const long rows = dim / size, cells = rows * dim;
  int* grid = rank == 0 ? calloc((size_t)(dim * dim), sizeof(int)) : NULL;
  int* block = calloc((size_t)((rows + 2) * dim), sizeof(int));
  for (long i = 0; rank == 0 && i < dim * dim; ++i) grid[i] = (int)(i % 97);
  /* Tree: rank 0 keeps its own rows; distributor d (1..tree) owns workers
   * d, d+tree, d+2*tree, ... and relays their blocks in one message each way. */
  const long group = tree ? (size - 1) / tree : 0;
  int* relay = tree && rank >= 1 && rank <= tree ? malloc((size_t)(group * cells) * sizeof(int)) : NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    if (!tree) {
      MPI_Scatter(grid, (int)cells, MPI_INT, block + dim, (int)cells, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
      memcpy(block + dim, grid, (size_t)cells * sizeof(int));
      for (int d = 1; d <= tree; ++d)
        for (long g = 0; g < group; ++g)
          MPI_Send(grid + (d + g * tree) * cells, (int)cells, MPI_INT, d, 1, MPI_COMM_WORLD);
    } else if (rank <= tree) {
      for (long g = 0; g < group; ++g)
        MPI_Recv(relay + g * cells, (int)cells, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      memcpy(block + dim, relay, (size_t)cells * sizeof(int));
      for (long g = 1; g < group; ++g)
        MPI_Send(relay + g * cells, (int)cells, MPI_INT, (int)(rank + g * tree), 1, MPI_COMM_WORLD);
    } else {
      MPI_Recv(block + dim, (int)cells, MPI_INT, (int)((rank - 1) % tree + 1), 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    /* halos from rank 0's copy of the grid */
    if (rank == 0) {
      for (int r = 1; r < size; ++r) {
        MPI_Send(grid + (r * rows - 1) * dim, (int)dim, MPI_INT, r, 2, MPI_COMM_WORLD);
        if (r < size - 1) MPI_Send(grid + (r + 1) * rows * dim, (int)dim, MPI_INT, r, 3, MPI_COMM_WORLD);
      }
    } else {
      MPI_Recv(block, (int)dim, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank < size - 1) MPI_Recv(block + (rows + 1) * dim, (int)dim, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    fid_charge((double)cells / rate);
    if (!tree) {
      MPI_Gather(block + dim, (int)cells, MPI_INT, grid, (int)cells, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
      memcpy(grid, block + dim, (size_t)cells * sizeof(int));
      for (int d = 1; d <= tree; ++d)
        for (long g = 0; g < group; ++g)
          MPI_Recv(grid + (d + g * tree) * cells, (int)cells, MPI_INT, d, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank <= tree) {
      memcpy(relay, block + dim, (size_t)cells * sizeof(int));
      for (long g = 1; g < group; ++g)
        MPI_Recv(relay + g * cells, (int)cells, MPI_INT, (int)(rank + g * tree), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (long g = 0; g < group; ++g) MPI_Send(relay + g * cells, (int)cells, MPI_INT, 0, 4, MPI_COMM_WORLD);
    } else {
      MPI_Send(block + dim, (int)cells, MPI_INT, (int)((rank - 1) % tree + 1), 4, MPI_COMM_WORLD);
    }
  }
  const double t = (MPI_Wtime() - t0) / (double)iters;
  int bad = 0;
  for (long i = 0; rank == 0 && i < dim * dim; ++i) bad |= grid[i] != (int)(i % 97);
  if (bad) fprintf(stderr, "zrlmpi_jacobi: gathered grid differs from the scattered one\n");
  if (rank == 0)
    FID_PRINT("\"bench\": \"zrlmpi_jacobi\", \"ranks\": %d, \"dim\": %ld, \"tree\": %ld, \"ms_per_iter\": %.6f",
              size, dim, tree, t * 1e3);
  free(grid);
  free(block);
  free(relay);
  MPI_Finalize();
  return bad;
}
