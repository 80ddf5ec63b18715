/* ACCL+'s microbenchmarks (OSDI'24 section 5) over mpi.h, in virtual time on the sim
 * fabric's accl preset:
 *   --mode sendrecv   rank 0 -> rank 1 throughput for sizes 1 KiB .. --max (Fig. 8:
 *                     peak 95 Gbit/s): MPI_Send of the message, a zero-byte reply
 *                     marks its arrival; Gbit/s = 8 * size / time.
 *   --mode coll       latency of bcast, reduce (sum of floats), gather and all-to-all
 *                     for sizes 1 KiB .. --max bytes per rank (Fig. 11/13): each rep
 *                     starts at one common instant after a barrier (virtual time),
 *                     the figure is the slowest rank's time.
 * One JSON line per size (and collective) from rank 0. */
#include <mpi.h>

#include "fid_common.h"

/* Ranks leave a barrier at different times (the last message reaches each at its own
 * moment), which skews a per-rank timing: a root that leaves late finds its data there
 * already. On the simulator all ranks share one time base, so they idle until one
 * common instant after the barrier and start together, as ACCL+'s hardware start does. */
static void start_together(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (!interlace_wtime_is_virtual()) return;
  double t = MPI_Wtime(), latest = 0;
  MPI_Allreduce(&t, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double go = latest + 100e-6; /* far beyond the allreduce's own skew */
  const double wait = go - MPI_Wtime();
  fid_charge(wait > 0 ? wait : 0);
}

static double coll_once(const char* which, void* sbuf, void* rbuf, int bytes, int size) {
  start_together();
  const double t0 = MPI_Wtime();
  const int nf = bytes / 4;
  if (strcmp(which, "bcast") == 0) MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  else if (strcmp(which, "reduce") == 0) MPI_Reduce(sbuf, rbuf, nf, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
  else if (strcmp(which, "gather") == 0) MPI_Gather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  else MPI_Alltoall(sbuf, bytes / size, MPI_BYTE, rbuf, bytes / size, MPI_BYTE, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return tmax;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = fid_opt_str(argc, argv, "--mode", "coll");
  const char* only = fid_opt_str(argc, argv, "--only", "");
  const long min = fid_opt_long(argc, argv, "--min", 1024);
  const long max = fid_opt_long(argc, argv, "--max", 1L << 20);
  const long reps = fid_opt_long(argc, argv, "--reps", 3);
  if (size < 2 || min < 64 || max < min || max > (1L << 28) || reps < 1) {
    if (rank == 0)
      fprintf(stderr, "accl_coll: needs >= 2 ranks, 64 <= --min %ld <= --max %ld <= 2^28, --reps %ld >= 1\n",
              min, max, reps);
    MPI_Finalize();
    return 2;
  }
  /* all-to-all and gather need size * max bytes at the root */
  char* sbuf = calloc((size_t)max, (size_t)size);
  char* rbuf = calloc((size_t)max, (size_t)size);
  if (!sbuf || !rbuf) {
    fprintf(stderr, "accl_coll: cannot allocate 2 x %ld x %d bytes\n", max, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (strcmp(mode, "sendrecv") == 0) {
    for (long n = min; n <= max; n *= 2) {
      double best = 1e300;
      for (long r = 0; r < reps + 1; ++r) { /* first rep warms the path */
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (rank == 0) {
          MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        const double t = MPI_Wtime() - t0;
        if (r > 0 && t < best) best = t;
      }
      if (rank == 0)
        FID_PRINT("\"bench\": \"accl_sendrecv\", \"bytes\": %ld, \"seconds\": %.9f, \"gbit_s\": %.4f", n, best,
                  8.0 * (double)n / best / 1e9);
    }
  } else if (strcmp(mode, "coll") == 0) {
    const char* colls[] = {"bcast", "reduce", "gather", "alltoall"};
    for (int c = 0; c < 4; ++c) {
      if (*only && !strstr(only, colls[c])) continue;
      for (long n = min; n <= max; n *= 2) {
        double sum = 0;
        coll_once(colls[c], sbuf, rbuf, (int)n, size); /* warm */
        for (long r = 0; r < reps; ++r) sum += coll_once(colls[c], sbuf, rbuf, (int)n, size);
        if (rank == 0)
          FID_PRINT("\"bench\": \"accl_coll\", \"coll\": \"%s\", \"ranks\": %d, \"bytes\": %ld, \"us\": %.4f",
                    colls[c], size, n, sum / (double)reps * 1e6);
      }
    }
  } else {
    if (rank == 0) fprintf(stderr, "accl_coll: unknown --mode '%s' (sendrecv, coll)\n", mode);
    MPI_Finalize();
    return 2;
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
