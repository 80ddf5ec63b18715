/* GESUMMV, y = alpha*A*x + beta*B*x (SMI SC'19 section 5.4.1, Fig. 12/13), with the
 * GEMVs' run time charged at a memory-bound rate (docs/fidelity.md derives it):
 *   1 rank : both GEMVs on one FPGA, sharing its memory bandwidth --mem-bw (bytes/s),
 *            and the AXPY; every row of A and B streams 2 * N * 4 bytes.
 *   2 ranks: rank 0 computes alpha*A*x and streams each element to rank 1 over an SMI
 *            channel; rank 1 computes beta*B*x from its own memory and adds (MPMD in
 *            the paper, one program with a rank switch here); each FPGA streams N * 4
 *            bytes per row at the full --mem-bw. Rank 0 flushes every --packet-elems
 *            elements (default 7: one SMI packet of 28 B), as SMI's Push forwards a
 *            packet once it is full, so rank 1 consumes while rank 0 computes.
 * The arithmetic is done for real on a small --check N so the result can be verified;
 * large N only charges time (the numbers would not change the modelled time).
 * Prints one JSON line from the rank holding y. */
#include <math.h>
#include <smi.h>

#include "fid_common.h"

enum { PORT_Y = 10, PORT_GO = 11 };

static float a_at(long i, long j) { return (float)((i * 7 + j * 3) % 11) / 11.0f; }
static float b_at(long i, long j) { return (float)((i * 5 + j * 13) % 17) / 17.0f; }
static float x_at(long j) { return (float)(j % 5) / 5.0f; }

static float gemv_row(int which, long i, long n, int real) {
  if (!real) return 0;
  float s = 0;
  for (long j = 0; j < n; ++j) s += (which ? b_at(i, j) : a_at(i, j)) * x_at(j);
  return s;
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int rank = SMI_Comm_rank(comm), size = SMI_Comm_size(comm);
  const long n = fid_opt_long(argc, argv, "--n", 4096);
  const double mem_bw = fid_opt_double(argc, argv, "--mem-bw", 19.2e9);
  const int real = fid_flag(argc, argv, "--check");
  const long pkt_elems = fid_opt_long(argc, argv, "--packet-elems", 7); /* SMI: 28 B payload */
  const float alpha = 1.5f, beta = 0.5f;
  if (n < 1 || n > (1L << 24) || mem_bw <= 0 || size > 2 || pkt_elems < 1) {
    fprintf(stderr,
            "smi_gesummv: needs 1 or 2 ranks, --n in 1..2^24, --mem-bw > 0 and --packet-elems >= 1 "
            "(got %d, %ld, %g, %ld)\n",
            size, n, mem_bw, pkt_elems);
    return 2;
  }
  double checksum = 0, t = 0;
  if (size == 1) {
    const double row_s = 2.0 * (double)n * 4.0 / mem_bw; /* two GEMVs share the bandwidth */
    const double t0 = interlace_wtime();
    for (long i = 0; i < n; ++i) {
      fid_charge(row_s);
      checksum += alpha * gemv_row(0, i, n, real) + beta * gemv_row(1, i, n, real);
    }
    t = interlace_wtime() - t0;
  } else {
    const double row_s = (double)n * 4.0 / mem_bw;
    int go = 1;
    if (rank == 0) {
      SMI_Channel start = SMI_Open_recv_channel(1, SMI_INT, 1, PORT_GO, comm);
      SMI_Pop(&start, &go);
      SMI_Channel out = SMI_Open_send_channel((int)n, SMI_FLOAT, 1, PORT_Y, comm);
      for (long i = 0; i < n; ++i) {
        fid_charge(row_s);
        float v = alpha * gemv_row(0, i, n, real);
        /* An SMI packet leaves the FPGA as soon as its 28 B (7 floats) are filled;
         * interlace's software channel would otherwise batch up to 32 KiB into one
         * frame, i.e. all of rank 0's results, arriving after all of its compute. */
        if ((i + 1) % pkt_elems == 0) SMI_Push_flush(&out, &v, 1);
        else SMI_Push(&out, &v);
      }
    } else {
      SMI_Channel start = SMI_Open_send_channel(1, SMI_INT, 0, PORT_GO, comm);
      SMI_Push(&start, &go);
      const double t0 = interlace_wtime();
      SMI_Channel in = SMI_Open_recv_channel((int)n, SMI_FLOAT, 0, PORT_Y, comm);
      for (long i = 0; i < n; ++i) {
        fid_charge(row_s);
        const float mine = beta * gemv_row(1, i, n, real);
        float theirs;
        SMI_Pop(&in, &theirs);
        checksum += mine + theirs;
      }
      t = interlace_wtime() - t0;
    }
  }
  if (rank == size - 1) {
    if (real) { /* the same sum computed directly, to catch a lost or misordered element */
      double want = 0;
      for (long i = 0; i < n; ++i) want += alpha * gemv_row(0, i, n, 1) + beta * gemv_row(1, i, n, 1);
      if (fabs(want - checksum) > 1e-3 * fabs(want) + 1e-3) {
        fprintf(stderr, "smi_gesummv: checksum %g, expected %g\n", checksum, want);
        return 1;
      }
    }
    FID_PRINT("\"bench\": \"smi_gesummv\", \"fpgas\": %d, \"n\": %ld, \"seconds\": %.9f, \"checksum\": %.6g",
              size, n, t, checksum);
  }
  SMI_Finalize();
  return 0;
}
