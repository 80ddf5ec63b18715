/* SMI's distributed stencil (SC'19 section 5.4.2, Fig. 14/15): an NX x NY 4-point
 * stencil over RX x RY FPGAs for T timesteps. Each step every FPGA exchanges its halo
 * (one row/column per neighbour, h = 1) with its north/south/west/east neighbours over
 * transient SMI channels, one port per direction as in Listing 3, and is charged for
 * updating its block at --rate cells per second (the FPGA pipeline's throughput, which
 * bench/run_fidelity.py derives from the paper; docs/fidelity.md). The cell values are
 * not computed: the modelled time does not depend on them, and a 4096^2 x 32 domain
 * would take the host longer than the whole fidelity set. The halos do carry data (each
 * rank's id), checked on arrival so a misrouted halo is caught.
 * Prints one JSON line from rank 0 (the slowest rank's time: all finish together). */
#include <smi.h>

#include "fid_common.h"

enum { PORT_N = 20, PORT_S = 21, PORT_W = 22, PORT_E = 23 };

/* Pushes `len` copies of the sender's id towards `to` on `port`. */
static void send_halo(SMI_Comm comm, int to, int port, long len, float id) {
  SMI_Channel c = SMI_Open_send_channel((int)len, SMI_FLOAT, to, port, comm);
  for (long i = 0; i < len; ++i) SMI_Push(&c, &id);
}

static int recv_halo(SMI_Comm comm, int from, int port, long len) {
  SMI_Channel c = SMI_Open_recv_channel((int)len, SMI_FLOAT, from, port, comm);
  int bad = 0;
  for (long i = 0; i < len; ++i) {
    float v;
    SMI_Pop(&c, &v);
    bad |= v != (float)from;
  }
  return bad;
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int rank = SMI_Comm_rank(comm), size = SMI_Comm_size(comm);
  const long nx = fid_opt_long(argc, argv, "--nx", 4096), ny = fid_opt_long(argc, argv, "--ny", 4096);
  const long rx = fid_opt_long(argc, argv, "--rx", 1), ry = fid_opt_long(argc, argv, "--ry", size);
  const long steps = fid_opt_long(argc, argv, "--steps", 32);
  const double rate = fid_opt_double(argc, argv, "--rate", 4.8e9);
  if (rx * ry != size || rx < 1 || ry < 1 || nx % rx || ny % ry || steps < 1 || rate <= 0) {
    fprintf(stderr,
            "smi_stencil: --rx %ld x --ry %ld must equal the %d ranks and divide --nx %ld / --ny %ld; "
            "--steps %ld and --rate %g must be positive\n",
            rx, ry, size, nx, ny, steps, rate);
    return 2;
  }
  const long bx = nx / rx, by = ny / ry; /* block rows x columns */
  const int r_x = (int)(rank / ry), r_y = (int)(rank % ry);
  const int north = r_x > 0 ? rank - (int)ry : -1, south = r_x < rx - 1 ? rank + (int)ry : -1;
  const int west = r_y > 0 ? rank - 1 : -1, east = r_y < ry - 1 ? rank + 1 : -1;
  const double step_s = (double)(bx * by) / rate;
  int bad = 0;
  int go = 0;
  /* Start together: the first step's halos would otherwise time the job's start-up skew. */
  SMI_BChannel b = SMI_Open_bcast_channel(1, SMI_INT, 30, 0, comm);
  SMI_Bcast(&b, &go);
  const double t0 = interlace_wtime();
  for (long t = 0; t < steps; ++t) {
    fid_charge(step_s);
    /* Halos are short next to the 64 KiB default degree: eager, so all sends go first. */
    if (north >= 0) send_halo(comm, north, PORT_S, by, (float)rank);
    if (south >= 0) send_halo(comm, south, PORT_N, by, (float)rank);
    if (west >= 0) send_halo(comm, west, PORT_E, bx, (float)rank);
    if (east >= 0) send_halo(comm, east, PORT_W, bx, (float)rank);
    if (north >= 0) bad |= recv_halo(comm, north, PORT_N, by);
    if (south >= 0) bad |= recv_halo(comm, south, PORT_S, by);
    if (west >= 0) bad |= recv_halo(comm, west, PORT_W, bx);
    if (east >= 0) bad |= recv_halo(comm, east, PORT_E, bx);
  }
  double t = interlace_wtime() - t0;
  /* The job's time is the slowest rank's: reduce the maximum to rank 0. */
  SMI_RChannel red = SMI_Open_reduce_channel(1, SMI_DOUBLE, SMI_MAX, 31, 0, comm);
  double tmax = 0;
  SMI_Reduce(&red, &t, &tmax);
  if (bad) {
    fprintf(stderr, "smi_stencil: rank %d received a halo from the wrong neighbour\n", rank);
    return 1;
  }
  if (rank == 0)
    FID_PRINT("\"bench\": \"smi_stencil\", \"fpgas\": %d, \"rx\": %ld, \"ry\": %ld, \"nx\": %ld, \"ny\": %ld, "
              "\"steps\": %ld, \"rate\": %.6g, \"seconds\": %.9f",
              size, rx, ry, nx, ny, steps, rate, tmax);
  SMI_Finalize();
  return 0;
}
