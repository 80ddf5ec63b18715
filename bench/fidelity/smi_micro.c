/* SMI's microbenchmarks (SC'19 section 5.3) over smi.h, between rank 0 and rank --peer
 * (on a linear bus routed in rank order that is --peer hops away):
 *   --mode latency    ping-pong of one int, latency = half the round trip (Table 3)
 *   --mode bandwidth  one message of --bytes streamed, payload bandwidth (Fig. 9)
 *   --mode inject     --iters one-element messages, each flushed into its own packet;
 *                     seconds per message of the sender's loop (Table 4: x clock = cycles)
 * Channels are eager (degree = count), as SMI's microbenchmarks use an eager protocol
 * (sec. 5.3); a credit-mode channel would add interlace's software end-to-end credits,
 * which SMI's hardware does not have (it relies on link-level flow control).
 * Ranks other than 0 and --peer only join the job (on the sim they forward packets).
 * Prints one JSON line from the measuring rank. */
#include <smi.h>

#include "fid_common.h"

enum { PORT_DATA = 1, PORT_BACK = 2, PORT_TIME = 3 };

static void latency(SMI_Comm comm, int rank, int peer, long iters) {
  const long warm = iters / 10 + 1;
  const long total = warm + iters;
  int x = 0;
  double t0 = 0;
  if (rank == 0) {
    SMI_Channel out = SMI_Open_send_channel((int)total, SMI_INT, peer, PORT_DATA, comm);
    SMI_Channel in = SMI_Open_recv_channel((int)total, SMI_INT, peer, PORT_BACK, comm);
    for (long i = 0; i < total; ++i) {
      if (i == warm) t0 = interlace_wtime();
      x = (int)i;
      SMI_Push_flush(&out, &x, 1);
      SMI_Pop(&in, &x);
    }
    const double t = interlace_wtime() - t0;
    FID_PRINT("\"bench\": \"smi_latency\", \"hops_peer\": %d, \"iters\": %ld, \"latency_us\": %.6f",
              peer, iters, t / (2.0 * (double)iters) * 1e6);
  } else if (rank == peer) {
    SMI_Channel in = SMI_Open_recv_channel((int)total, SMI_INT, 0, PORT_DATA, comm);
    SMI_Channel out = SMI_Open_send_channel((int)total, SMI_INT, 0, PORT_BACK, comm);
    for (long i = 0; i < total; ++i) {
      SMI_Pop(&in, &x);
      SMI_Push_flush(&out, &x, 1);
    }
  }
}

/* The sender stamps its start and sends the stamp after the data on its own channel, so
 * the receiver measures start-to-last-element on the job's one time base. */
static void bandwidth(SMI_Comm comm, int rank, int peer, long bytes) {
  const int n = (int)(bytes / (long)sizeof(float));
  if (rank == 0) {
    int go;
    SMI_Channel start = SMI_Open_recv_channel(1, SMI_INT, peer, PORT_BACK, comm);
    SMI_Pop(&start, &go);
    const double t0 = interlace_wtime();
    SMI_Channel out = SMI_Open_send_channel_ad(n, SMI_FLOAT, peer, PORT_DATA, comm, n);
    for (int i = 0; i < n; ++i) {
      float v = (float)i;
      SMI_Push(&out, &v);
    }
    SMI_Channel stamp = SMI_Open_send_channel(1, SMI_DOUBLE, peer, PORT_TIME, comm);
    SMI_Push(&stamp, &t0);
  } else if (rank == peer) {
    int go = 1;
    SMI_Channel start = SMI_Open_send_channel(1, SMI_INT, 0, PORT_BACK, comm);
    SMI_Push(&start, &go);
    SMI_Channel in = SMI_Open_recv_channel_ad(n, SMI_FLOAT, 0, PORT_DATA, comm, n);
    float v = 0, last = -1;
    for (int i = 0; i < n; ++i) {
      SMI_Pop(&in, &v);
      last = v;
    }
    const double t1 = interlace_wtime();
    double t0;
    SMI_Channel stamp = SMI_Open_recv_channel(1, SMI_DOUBLE, 0, PORT_TIME, comm);
    SMI_Pop(&stamp, &t0);
    if (n > 0 && last != (float)(n - 1)) {
      fprintf(stderr, "smi_micro: stream arrived out of order (last %g)\n", last);
      exit(1);
    }
    const double gbit = (double)n * sizeof(float) * 8 / (t1 - t0) / 1e9;
    FID_PRINT("\"bench\": \"smi_bandwidth\", \"hops_peer\": %d, \"bytes\": %ld, \"seconds\": %.9f, "
              "\"gbit_s\": %.4f",
              peer, (long)n * (long)sizeof(float), t1 - t0, gbit);
  }
}

/* SMI sec. 5.3.3 divides the injected messages by the *sender's* kernel time; the
 * receiver's spacing of arrivals is printed too, as a cross-check (they agree once the
 * sender's FIFO is long drained, i.e. for many messages). */
static void inject(SMI_Comm comm, int rank, int peer, long iters) {
  if (rank == 0) {
    int go;
    SMI_Channel start = SMI_Open_recv_channel(1, SMI_INT, peer, PORT_BACK, comm);
    SMI_Pop(&start, &go);
    const double t0 = interlace_wtime();
    SMI_Channel out = SMI_Open_send_channel_ad((int)iters, SMI_INT, peer, PORT_DATA, comm, (int)iters);
    for (long i = 0; i < iters; ++i) {
      int v = (int)i;
      SMI_Push_flush(&out, &v, 1);
    }
    const double ts = interlace_wtime() - t0;
    FID_PRINT("\"bench\": \"smi_inject\", \"hops_peer\": %d, \"iters\": %ld, \"seconds_per_msg\": %.12g",
              peer, iters, ts / (double)iters);
    SMI_Channel stamp = SMI_Open_send_channel(1, SMI_DOUBLE, peer, PORT_TIME, comm);
    SMI_Push(&stamp, &t0);
  } else if (rank == peer) {
    int go = 1;
    SMI_Channel start = SMI_Open_send_channel(1, SMI_INT, 0, PORT_BACK, comm);
    SMI_Push(&start, &go);
    SMI_Channel in = SMI_Open_recv_channel_ad((int)iters, SMI_INT, 0, PORT_DATA, comm, (int)iters);
    int v;
    for (long i = 0; i < iters; ++i) SMI_Pop(&in, &v);
    const double t1 = interlace_wtime();
    double t0;
    SMI_Channel stamp = SMI_Open_recv_channel(1, SMI_DOUBLE, 0, PORT_TIME, comm);
    SMI_Pop(&stamp, &t0);
    FID_PRINT("\"bench\": \"smi_inject_recv\", \"hops_peer\": %d, \"iters\": %ld, \"seconds_per_msg\": %.12g",
              peer, iters, (t1 - t0) / (double)iters);
  }
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int rank = SMI_Comm_rank(comm), size = SMI_Comm_size(comm);
  const char* mode = fid_opt_str(argc, argv, "--mode", "latency");
  const long peer = fid_opt_long(argc, argv, "--peer", 1);
  const long iters = fid_opt_long(argc, argv, "--iters", 1000);
  const long bytes = fid_opt_long(argc, argv, "--bytes", 1 << 20);
  if (peer < 1 || peer >= size) {
    fprintf(stderr, "smi_micro: --peer %ld is not a rank other than 0 (job of %d ranks)\n", peer, size);
    return 2;
  }
  if (iters < 1 || iters > (1L << 30) || bytes < 4 || bytes > (1L << 33)) {
    fprintf(stderr, "smi_micro: --iters %ld / --bytes %ld out of range\n", iters, bytes);
    return 2;
  }
  if (strcmp(mode, "latency") == 0) latency(comm, rank, (int)peer, iters);
  else if (strcmp(mode, "bandwidth") == 0) bandwidth(comm, rank, (int)peer, bytes);
  else if (strcmp(mode, "inject") == 0) inject(comm, rank, (int)peer, iters);
  else {
    fprintf(stderr, "smi_micro: unknown --mode '%s' (latency, bandwidth, inject)\n", mode);
    return 2;
  }
  SMI_Finalize();
  return 0;
}
