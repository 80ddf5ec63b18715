/* OmpSs@cloudFPGA's N-body weak scaling (section VI-C, Fig. 6, Table II) over mpi.h, in
 * virtual time on the sim fabric's cloudfpga preset. Each rank holds --blocks blocks of
 * --bs particles (the paper: 30 x 2048 = 61440 per FPGA); every iteration the positions
 * are all-gathered (OMPIF's allgather) and each rank computes the forces of its blocks
 * against all blocks, charged at --rate pairs per second (the FPGA's force pipeline;
 * docs/fidelity.md derives it from the paper's single-FPGA figure) plus --task-cycles
 * of runtime per task at --clock Hz. Particles travel as 16 bytes (x, y, z, m floats).
 * Gpairs/s = n^2 * iterations / time (the paper's metric), n = ranks * blocks * bs.
 * One JSON line from rank 0. */
#include <mpi.h>

#include "fid_common.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long blocks = fid_opt_long(argc, argv, "--blocks", 30);
  const long bs = fid_opt_long(argc, argv, "--bs", 2048);
  const long iters = fid_opt_long(argc, argv, "--iters", 2);
  const double rate = fid_opt_double(argc, argv, "--rate", 6.27e9);
  const double task_cycles = fid_opt_double(argc, argv, "--task-cycles", 60);
  const double clock = fid_opt_double(argc, argv, "--clock", 200e6);
  if (blocks < 1 || bs < 1 || iters < 1 || rate <= 0 || clock <= 0 || blocks * bs > (1L << 26)) {
    if (rank == 0)
      fprintf(stderr, "nbody_scaling: --blocks %ld, --bs %ld, --iters %ld, --rate %g, --clock %g out of range\n",
              blocks, bs, iters, rate, clock);
    MPI_Finalize();
    return 2;
  }
  const long local = blocks * bs, n = local * size;
  float* mine = malloc((size_t)local * 4 * sizeof(float));
  float* all = malloc((size_t)n * 4 * sizeof(float));
  if (!mine || !all) {
    fprintf(stderr, "nbody_scaling: cannot allocate %ld particles\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < local * 4; ++i) mine[i] = (float)(rank * local * 4 + i);
  /* One force task = one local block against one block of the whole set. */
  const double task_s = (double)bs * (double)bs / rate + task_cycles / clock;
  const long tasks = blocks * (n / bs);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    MPI_Allgather(mine, (int)(local * 4), MPI_FLOAT, all, (int)(local * 4), MPI_FLOAT, MPI_COMM_WORLD);
    fid_charge((double)tasks * task_s);
  }
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* the gathered set must hold every rank's particles in rank order */
  int bad = all[(n - 1) * 4 + 3] != (float)(n * 4 - 1) || all[0] != 0.0f;
  if (bad) fprintf(stderr, "nbody_scaling: rank %d: allgather result out of place\n", rank);
  if (rank == 0)
    FID_PRINT("\"bench\": \"nbody_scaling\", \"fpgas\": %d, \"particles\": %ld, \"iters\": %ld, \"seconds\": %.6f, "
              "\"gpairs_s\": %.4f",
              size, n, iters, tmax, (double)n * (double)n * (double)iters / tmax / 1e9);
  free(mine);
  free(all);
  MPI_Finalize();
  return bad;
}
