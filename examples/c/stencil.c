/* 2D Jacobi 4-point stencil, SPMD on PX x PY ranks (SMI paper §5.4.2, Listing 3).
 *
 * The NX x NY grid is split into PX x PY blocks; rank r holds block (r / PY, r % PY).
 * Every time step each rank opens one send and one receive channel per neighbour,
 * on a port per direction of travel; a rank on the grid's edge has no neighbour
 * there and leaves that direction's channels unopened, using the fixed boundary
 * value instead. Halo elements are popped while the block is streamed row by row
 * through a three-row line buffer, the way an HLS kernel reads its input, and each
 * output row is computed as soon as the row below it has been read.
 *
 *   interlace run -n 4 ./stencil [NX NY T PX PY]      (defaults 512 512 100, PX x PY
 *                                                     chosen from the rank count)
 * Rank 0 prints the largest difference from a single-rank run and OK or FAILED.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime also under -std=c11 */
#include <math.h>
#include <smi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Ports name the direction data travels, as in Listing 3 (west halo on port 1). */
enum { PORT_EAST = 1, PORT_WEST = 2, PORT_SOUTH = 3, PORT_NORTH = 4, PORT_RESULT = 5 };
#define TOP_VALUE 1.0f /* Dirichlet boundary: 1 above the grid, 0 on the other sides */

typedef struct {
  int nx, ny, steps, px, py;   /* global grid, steps, rank grid */
  int bx, by;                  /* block size */
  int rx, ry;                  /* this rank's block coordinates */
} Grid;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int arg_int(int argc, char** argv, int i, int fallback, const char* name) {
  if (argc <= i) return fallback;
  char* end;
  long v = strtol(argv[i], &end, 10);
  if (*end || v < 1 || v > 1 << 20) {
    fprintf(stderr, "stencil: %s must be a positive integer, got '%s'\n", name, argv[i]);
    exit(2);
  }
  return (int)v;
}

/* The squarest PX x PY = size with PX <= PY. */
static void default_shape(int size, int* px, int* py) {
  int best = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) best = d;
  *px = best;
  *py = size / best;
}

static float initial_value(int gi, int gj) { return (float)((gi * 3 + gj * 5) % 7) / 7.0f; }

/* One Jacobi update from the three rows above, at and below the output row.
 * Columns 0 and by+1 of each row are the west/east halo. */
static void compute_row(const float* up, const float* mid, const float* down, float* out, int by) {
  for (int j = 1; j <= by; ++j) out[j - 1] = 0.25f * ((up[j] + down[j]) + (mid[j - 1] + mid[j + 1]));
}

/* Reads padded row i (0 = north halo, bx+1 = south halo) of the block into `row`,
 * popping halo elements from the channels the way Listing 3 does. */
static void stream_row(const Grid* g, const float* block, int i, float* row, SMI_Channel* north,
                       SMI_Channel* south, SMI_Channel* west, SMI_Channel* east) {
  const int by = g->by;
  if (i == 0 || i == g->bx + 1) {
    SMI_Channel* ch = i == 0 ? north : south;
    for (int j = 1; j <= by; ++j) {
      if (ch) SMI_Pop(ch, &row[j]);
      else row[j] = i == 0 ? TOP_VALUE : 0.0f;
    }
    row[0] = row[by + 1] = 0.0f; /* corners: a 4-point stencil never reads them */
    return;
  }
  if (west) SMI_Pop(west, &row[0]);
  else row[0] = 0.0f;
  memcpy(row + 1, block + (size_t)(i - 1) * by, (size_t)by * sizeof(float));
  if (east) SMI_Pop(east, &row[by + 1]);
  else row[by + 1] = 0.0f;
}

/* Sends this block's edge rows/columns to the neighbours that exist. */
static void send_halos(const Grid* g, const float* block, int rank) {
  const int bx = g->bx, by = g->by;
  /* Degree = count: every halo channel is eager, so all ranks may push their whole
   * halos before popping any (a CPU rank is one thread, not four HLS kernels). */
  if (g->rx > 0) {
    SMI_Channel c = SMI_Open_send_channel_ad(by, SMI_FLOAT, rank - g->py, PORT_NORTH, SMI_COMM_WORLD, by);
    for (int j = 0; j < by; ++j) SMI_Push(&c, &block[j]);
  }
  if (g->rx < g->px - 1) {
    SMI_Channel c = SMI_Open_send_channel_ad(by, SMI_FLOAT, rank + g->py, PORT_SOUTH, SMI_COMM_WORLD, by);
    for (int j = 0; j < by; ++j) SMI_Push(&c, &block[(size_t)(bx - 1) * by + j]);
  }
  if (g->ry > 0) {
    SMI_Channel c = SMI_Open_send_channel_ad(bx, SMI_FLOAT, rank - 1, PORT_WEST, SMI_COMM_WORLD, bx);
    for (int i = 0; i < bx; ++i) SMI_Push(&c, &block[(size_t)i * by]);
  }
  if (g->ry < g->py - 1) {
    SMI_Channel c = SMI_Open_send_channel_ad(bx, SMI_FLOAT, rank + 1, PORT_EAST, SMI_COMM_WORLD, bx);
    for (int i = 0; i < bx; ++i) SMI_Push(&c, &block[(size_t)i * by + by - 1]);
  }
}

static void time_step(const Grid* g, const float* in, float* out, int rank, float* rows[3]) {
  send_halos(g, in, rank);
  SMI_Channel n, s, w, e;
  SMI_Channel* north = NULL; SMI_Channel* south = NULL;
  SMI_Channel* west = NULL; SMI_Channel* east = NULL;
  /* A halo from the north neighbour travelled south, so it arrives on PORT_SOUTH. */
  if (g->rx > 0) n = SMI_Open_recv_channel_ad(g->by, SMI_FLOAT, rank - g->py, PORT_SOUTH, SMI_COMM_WORLD, g->by), north = &n;
  if (g->rx < g->px - 1) s = SMI_Open_recv_channel_ad(g->by, SMI_FLOAT, rank + g->py, PORT_NORTH, SMI_COMM_WORLD, g->by), south = &s;
  if (g->ry > 0) w = SMI_Open_recv_channel_ad(g->bx, SMI_FLOAT, rank - 1, PORT_EAST, SMI_COMM_WORLD, g->bx), west = &w;
  if (g->ry < g->py - 1) e = SMI_Open_recv_channel_ad(g->bx, SMI_FLOAT, rank + 1, PORT_WEST, SMI_COMM_WORLD, g->bx), east = &e;
  /* Line buffer: rows[k % 3] holds padded row k. */
  stream_row(g, in, 0, rows[0], north, south, west, east);
  stream_row(g, in, 1, rows[1], north, south, west, east);
  for (int i = 2; i <= g->bx + 1; ++i) {
    stream_row(g, in, i, rows[i % 3], north, south, west, east);
    compute_row(rows[(i - 2) % 3], rows[(i - 1) % 3], rows[i % 3], out + (size_t)(i - 2) * g->by, g->by);
  }
}

/* The whole grid on one rank, same arithmetic: the reference. */
static float* reference(const Grid* g) {
  const int nx = g->nx, ny = g->ny;
  float* a = (float*)calloc((size_t)(nx + 2) * (ny + 2), sizeof(float));
  float* b = (float*)calloc((size_t)(nx + 2) * (ny + 2), sizeof(float));
  for (int j = 1; j <= ny; ++j) a[j] = b[j] = TOP_VALUE;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) a[(size_t)(i + 1) * (ny + 2) + j + 1] = initial_value(i, j);
  for (int t = 0; t < g->steps; ++t) {
    for (int i = 1; i <= nx; ++i)
      compute_row(a + (size_t)(i - 1) * (ny + 2), a + (size_t)i * (ny + 2), a + (size_t)(i + 1) * (ny + 2),
                  b + (size_t)i * (ny + 2) + 1, ny);
    float* tmp = a; a = b; b = tmp;
  }
  free(b);
  return a;
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int rank = SMI_Comm_rank(comm), size = SMI_Comm_size(comm);
  Grid g;
  g.nx = arg_int(argc, argv, 1, 512, "NX");
  g.ny = arg_int(argc, argv, 2, 512, "NY");
  g.steps = arg_int(argc, argv, 3, 100, "T");
  default_shape(size, &g.px, &g.py);
  g.px = arg_int(argc, argv, 4, g.px, "PX");
  g.py = arg_int(argc, argv, 5, g.py, "PY");
  if (g.px * g.py != size || g.nx % g.px || g.ny % g.py) {
    if (rank == 0)
      fprintf(stderr, "stencil: PX x PY = %d x %d must equal the %d ranks and divide the %d x %d grid\n",
              g.px, g.py, size, g.nx, g.ny);
    return 2;
  }
  g.bx = g.nx / g.px;
  g.by = g.ny / g.py;
  g.rx = rank / g.py;
  g.ry = rank % g.py;

  float* in = (float*)malloc((size_t)g.bx * g.by * sizeof(float));
  float* out = (float*)malloc((size_t)g.bx * g.by * sizeof(float));
  float* rows[3];
  for (int k = 0; k < 3; ++k) rows[k] = (float*)malloc((size_t)(g.by + 2) * sizeof(float));
  for (int i = 0; i < g.bx; ++i)
    for (int j = 0; j < g.by; ++j) in[(size_t)i * g.by + j] = initial_value(g.rx * g.bx + i, g.ry * g.by + j);

  const double t0 = now_seconds();
  for (int t = 0; t < g.steps; ++t) {
    time_step(&g, in, out, rank, rows);
    float* tmp = in; in = out; out = tmp;
  }
  const double elapsed = now_seconds() - t0;

  /* Each rank compares its block with the reference; rank 0 collects the errors. */
  const int check = getenv("STENCIL_NO_CHECK") == NULL;
  double err = 0.0;
  if (check) {
    float* ref = reference(&g);
    for (int i = 0; i < g.bx; ++i)
      for (int j = 0; j < g.by; ++j) {
        double d = fabs((double)in[(size_t)i * g.by + j] -
                        (double)ref[(size_t)(g.rx * g.bx + i + 1) * (g.ny + 2) + g.ry * g.by + j + 1]);
        if (!(d <= err)) err = isnan(d) ? INFINITY : d;
      }
    free(ref);
  }
  double times[2] = {err, elapsed};
  if (rank != 0) {
    SMI_Channel c = SMI_Open_send_channel(2, SMI_DOUBLE, 0, PORT_RESULT, comm);
    SMI_Push(&c, &times[0]);
    SMI_Push(&c, &times[1]);
  } else {
    double max_err = err, max_time = elapsed;
    for (int r = 1; r < size; ++r) {
      SMI_Channel c = SMI_Open_recv_channel(2, SMI_DOUBLE, r, PORT_RESULT, comm);
      SMI_Pop(&c, &times[0]);
      SMI_Pop(&c, &times[1]);
      if (!(times[0] <= max_err)) max_err = times[0];
      if (times[1] > max_time) max_time = times[1];
    }
    printf("stencil %dx%d, %d steps on %dx%d ranks: %.3f ms (%.1f Mcell-updates/s)", g.nx, g.ny, g.steps,
           g.px, g.py, max_time * 1e3, (double)g.nx * g.ny * g.steps / max_time / 1e6);
    if (check) printf("; max error %.3g: %s\n", max_err, max_err <= 1e-5 ? "OK" : "FAILED");
    else printf("; not checked\n");
    fflush(stdout);
    if (check && !(max_err <= 1e-5)) {
      SMI_Finalize();
      return 1;
    }
  }
  free(in);
  free(out);
  for (int k = 0; k < 3; ++k) free(rows[k]);
  SMI_Finalize();
  return 0;
}
