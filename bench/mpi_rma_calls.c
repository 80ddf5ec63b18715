/* The fixed cost of one-sided calls on one rank: MPI_Put + MPI_Win_flush, MPI_Put alone
 * and MPI_Accumulate (MPI_SUM of one double) to the caller's own MPI_Win_allocate window
 * inside MPI_Win_lock_all, best of 7 repetitions of 1,000,000 calls (ns per call). No
 * second process is involved, so the figure is the library's call path, not a transport:
 * build it with each MPI from the same source and run it on 1 rank. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double *mem, x = 1;
  MPI_Win win;
  MPI_Win_allocate(4096, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_lock_all(0, win);
  const int n = 1000000;
  double best[3] = {1e9, 1e9, 1e9};
  for (int r = 0; r < 7; r++) {
    double t = now();
    for (int i = 0; i < n; i++) {
      MPI_Put(&x, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win);
      MPI_Win_flush(0, win);
    }
    t = (now() - t) / n * 1e9;
    if (t < best[0]) best[0] = t;
    t = now();
    for (int i = 0; i < n; i++) MPI_Put(&x, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win);
    t = (now() - t) / n * 1e9;
    if (t < best[1]) best[1] = t;
    t = now();
    for (int i = 0; i < n; i++) MPI_Accumulate(&x, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE, MPI_SUM, win);
    t = (now() - t) / n * 1e9;
    if (t < best[2]) best[2] = t;
  }
  MPI_Win_unlock_all(win);
  printf("put+flush %.1f ns, put %.1f ns, accumulate %.1f ns\n", best[0], best[1], best[2]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
