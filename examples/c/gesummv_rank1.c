/* GESUMMV, rank 1 of the MPMD pair: computes beta*B*x and adds rank 0's alpha*A*x
 * element by element as it arrives (the AXPY reads one input from the network).
 * Then checks y against a single-rank computation and prints the max error.
 *
 *   interlace run -n 1 ./gesummv_rank0 [N] : -n 1 ./gesummv_rank1 [N]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime also under -std=c11 */
#include <math.h>
#include <smi.h>

#include "gesummv_common.h"

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int n = gesummv_size(argc, argv);
  if (SMI_Comm_size(comm) != 2 || SMI_Comm_rank(comm) != 1) {
    fprintf(stderr, "gesummv_rank1 must be rank 1 of 2 (see the usage line)\n");
    return 2;
  }
  float* a = gesummv_matrix(n, matrix_a);  /* only for the reference below */
  float* b = gesummv_matrix(n, matrix_b);
  float* x = gesummv_vector(n);
  float* y = (float*)malloc((size_t)n * sizeof(float));

  int go = 1;
  SMI_Channel start = SMI_Open_send_channel(1, SMI_INT, 0, GESUMMV_PORT + 1, comm);
  const double t0 = now_seconds();
  SMI_Push(&start, &go);
  SMI_Channel from_gemv = SMI_Open_recv_channel(n, SMI_FLOAT, 0, GESUMMV_PORT, comm);
  for (int i = 0; i < n; ++i) {
    float bx = gemv_row(b, x, n, i, GESUMMV_BETA);
    float ax;
    SMI_Pop(&from_gemv, &ax);
    y[i] = ax + bx;
  }
  const double t_dist = now_seconds() - t0;

  /* Single-rank reference: both GEMVs on this rank, same arithmetic. */
  const double t1 = now_seconds();
  double max_err = 0.0;
  for (int i = 0; i < n; ++i) {
    float ref = gemv_row(a, x, n, i, GESUMMV_ALPHA) + gemv_row(b, x, n, i, GESUMMV_BETA);
    double err = fabs((double)y[i] - (double)ref);
    if (err > max_err || isnan(err)) max_err = isnan(err) ? INFINITY : err;
  }
  const double t_ref = now_seconds() - t1;

  const int ok = max_err <= 1e-4;
  printf("gesummv N=%d: 2 ranks %.3f ms, 1 rank %.3f ms; max error %.3g: %s\n", n, t_dist * 1e3,
         t_ref * 1e3, max_err, ok ? "OK" : "FAILED");
  free(a);
  free(b);
  free(x);
  free(y);
  SMI_Finalize();
  return ok ? 0 : 1;
}
