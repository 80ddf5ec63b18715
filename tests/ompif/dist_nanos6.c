/* The nanos6 host calls: map a buffer on every device, copy to all, scatter, scatterv,
 * to/from one device, memcpy_vector, a distributed task on the mapped buffer, gather,
 * unmap; then bad input through an error handler (unmapped address, offsets out of
 * range, a bad device id, a call from a device). */
#include <nanos6/distributed.h>
#include <string.h>

#include "check.h"

enum { N = 64 }; /* ints per device buffer */


/* regions[0]: this device's mapped buffer; adds 1000 x (device + 1) to every int. */
static void bump(void* const* regions, const void* args, size_t n) {
  (void)args;
  (void)n;
  int* buf = regions[0];
  int dev = il_dist_device();
  for (int i = 0; i < N; ++i) buf[i] += 1000 * (dev + 1);
  /* The host calls are the host's: on a device they report an error. */
  OMPIF_Error_handler old = OMPIF_Set_error_handler(record);
  EXPECT_ERROR(nanos6_dist_memcpy_to_all(buf, 4, 0, 0));
  OMPIF_Set_error_handler(old);
}

/* Reads device d's buffer [0, n ints) into host[0..n) (address = the mapped key). */
static void fetch(int d, int* host, int n) {
  memset(host, 0xff, sizeof(int) * n);
  nanos6_dist_memcpy_from_device(d, host, sizeof(int) * n, 0, 0);
}

int main(void) {
  il_dist_register("bump", bump);
  if (il_dist_init() != 1) return 0;
  int P = nanos6_dist_num_devices();
  static int host[N * 8], ref[N * 8];
  nanos6_dist_map_address(host, sizeof(int) * N); /* N ints on every device */
  /* copy to all: every device's buffer = 0..N-1 */
  for (int i = 0; i < N; ++i) host[i] = i;
  nanos6_dist_memcpy_to_all(host, sizeof(int) * N, 0, 0);
  for (int d = 0; d < P; ++d) {
    fetch(d, host, N);
    for (int i = 0; i < N; ++i) CHECK(host[i] == i, "to_all: device %d [%d]=%d", d, i, host[i]);
  }
  /* scatter: device d gets host[d*8 .. d*8+8) at int offset 4 */
  for (int i = 0; i < N * 8; ++i) host[i] = ref[i] = 7 * i;
  nanos6_dist_scatter(host, 8 * sizeof(int), 0, 4 * sizeof(int));
  /* gather: host[16 + d*8 ..) = device d's ints 4..12 */
  memset(host, 0, sizeof host);
  nanos6_dist_gather(host, 8 * sizeof(int), 4 * sizeof(int), 16 * sizeof(int));
  for (int d = 0; d < P; ++d)
    for (int i = 0; i < 8; ++i)
      CHECK(host[16 + d * 8 + i] == ref[d * 8 + i], "scatter/gather: device %d [%d]=%d", d, i,
            host[16 + d * 8 + i]);
  /* scatterv: device d gets d+1 ints from host[10*d] at int offset 20 */
  for (int i = 0; i < N * 8; ++i) host[i] = ref[i];
  uint64_t sizes[8], sends[8], recvs[8];
  for (int d = 0; d < P; ++d) {
    sizes[d] = (d + 1) * sizeof(int);
    sends[d] = 10 * d * sizeof(int);
    recvs[d] = 20 * sizeof(int);
  }
  nanos6_dist_scatterv(host, sizes, sends, recvs);
  /* memcpy_vector FROM: host[30*d + 64 ..) = device d's ints 20.. */
  nanos6_dist_memcpy_info_t v[8];
  for (int d = 0; d < P; ++d) {
    v[d].size = (d + 1) * sizeof(int);
    v[d].sendOffset = 20 * sizeof(int);
    v[d].recvOffset = (30 * d + 64) * sizeof(int);
    v[d].devId = d;
  }
  memset(host, 0, sizeof host);
  nanos6_dist_memcpy_vector(host, P, v, NANOS6_DIST_COPY_FROM);
  for (int d = 0; d < P; ++d)
    for (int i = 0; i <= d; ++i)
      CHECK(host[30 * d + 64 + i] == ref[10 * d + i], "scatterv: device %d [%d]=%d", d, i,
            host[30 * d + 64 + i]);
  /* memcpy_vector TO, then a distributed task on the mapped buffer */
  for (int i = 0; i < N; ++i) host[i] = -i;
  for (int d = 0; d < P; ++d) {
    v[d].size = sizeof(int) * N;
    v[d].sendOffset = 0;
    v[d].recvOffset = 0;
  }
  nanos6_dist_memcpy_vector(host, P, v, NANOS6_DIST_COPY_TO);
  il_dist_clause_t cl = {IL_DIST_MAPPED, host, sizeof(int) * N, 0};
  CHECK(il_dist_spawn("bump", &cl, 1, NULL, 0) == 0, "%s", il_dist_error_message());
  CHECK(il_dist_taskwait() == 0, "%s", il_dist_error_message());
  for (int d = 0; d < P; ++d) {
    fetch(d, host, N);
    for (int i = 0; i < N; ++i)
      CHECK(host[i] == -i + 1000 * (d + 1), "mapped task: device %d [%d]=%d", d, i, host[i]);
  }
  /* bad input */
  OMPIF_Set_error_handler(record);
  static int unmapped[4];
  EXPECT_ERROR(nanos6_dist_memcpy_to_all(unmapped, 4, 0, 0));
  EXPECT_ERROR(nanos6_dist_memcpy_to_device(0, host, 8, 0, sizeof(int) * N - 4));
  EXPECT_ERROR(nanos6_dist_memcpy_from_device(P, host, 4, 0, 0));
  EXPECT_ERROR(nanos6_dist_memcpy_to_device(-1, host, 4, 0, 0));
  EXPECT_ERROR(nanos6_dist_map_address(host, 16));
  il_dist_clause_t bad = {IL_DIST_MAPPED, unmapped, 4, 0};
  CHECK(il_dist_spawn("bump", &bad, 1, NULL, 0) == -1, "mapped clause of an unmapped address");
  printf("SPAWN %s\n", il_dist_error_message());
  nanos6_dist_unmap_address(host);
  EXPECT_ERROR(nanos6_dist_memcpy_to_all(host, 4, 0, 0));
  EXPECT_ERROR(nanos6_dist_unmap_address(host));
  il_dist_finalize();
  printf("OK dist_nanos6 %d devices\n", P);
  return 0;
}
