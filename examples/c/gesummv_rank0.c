/* GESUMMV, rank 0 of the MPMD pair (SMI paper Fig. 12, right): computes alpha*A*x and
 * streams each result element to rank 1 as soon as its row is done.
 *
 *   interlace run -n 1 ./gesummv_rank0 [N] : -n 1 ./gesummv_rank1 [N]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime also under -std=c11 */
#include <smi.h>

#include "gesummv_common.h"

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int n = gesummv_size(argc, argv);
  if (SMI_Comm_size(comm) != 2 || SMI_Comm_rank(comm) != 0) {
    fprintf(stderr, "gesummv_rank0 must be rank 0 of 2 (see the usage line)\n");
    return 2;
  }
  float* a = gesummv_matrix(n, matrix_a);
  float* x = gesummv_vector(n);

  /* Start together with rank 1 (its set-up takes longer: two matrices). */
  int go;
  SMI_Channel start = SMI_Open_recv_channel(1, SMI_INT, 1, GESUMMV_PORT + 1, comm);
  SMI_Pop(&start, &go);
  const double t0 = now_seconds();
  SMI_Channel to_axpy = SMI_Open_send_channel(n, SMI_FLOAT, 1, GESUMMV_PORT, comm);
  for (int i = 0; i < n; ++i) {
    float ax = gemv_row(a, x, n, i, GESUMMV_ALPHA);
    SMI_Push(&to_axpy, &ax);
  }
  const double t = now_seconds() - t0;
  printf("gesummv rank 0: GEMV of %d x %d streamed in %.3f ms\n", n, n, t * 1e3);

  free(a);
  free(x);
  SMI_Finalize();
  return 0;
}
