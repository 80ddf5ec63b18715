/* The interlace side of tests/python/test_zrlmpi_wire.py: rank 0 of a job whose
 * rank 1 is a ZRLMPI node (zrl_peer.c); plain MPI, built with interlace-cc.
 * usage: partner <app> N [ITERS], the app named as zrl_peer's counterpart. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, int i, double got, double want) {
  printf("partner: FAIL %s at %d: %g (want %g)\n", what, i, got, want);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

static void expect_error(int rc, const char* call) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (rc == MPI_SUCCESS) {
    printf("partner: FAIL %s succeeded\n", call);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Error_string(rc, msg, &len);
  printf("partner: %s refused: %s\n", call, msg);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) return 2;
  const char* app = argv[1];
  const int n = atoi(argv[2]);
  const int iters = argc > 3 ? atoi(argv[3]) : 1;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int node = 1;
  int* v = calloc((size_t)n + 1, sizeof(int));
  float* f = calloc((size_t)n + 1, sizeof(float));
  MPI_Status st;
  if (strcmp(app, "echo") == 0) {
    for (int i = 0; i < n; i++) v[i] = 5 * i - 3;
    MPI_Send(v, n, MPI_INT, node, 3, MPI_COMM_WORLD);
    memset(v, 0, (size_t)n * sizeof(int));
    MPI_Recv(v, n, MPI_INT, node, 9, MPI_COMM_WORLD, &st);  /* ZRLMPI has no tags: any matches */
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    if (count != n || st.MPI_SOURCE != node || st.MPI_TAG != 9) return fail("status", count, st.MPI_TAG, 9);
    for (int i = 0; i < n; i++) if (v[i] != 5 * i - 2) return fail("echo", i, v[i], 5 * i - 2);
  } else if (strcmp(app, "echo-float") == 0) {
    for (int i = 0; i < n; i++) f[i] = 0.5f * (float)i + 0.25f;
    MPI_Send(f, n, MPI_FLOAT, node, 0, MPI_COMM_WORLD);
    MPI_Recv(f, n, MPI_FLOAT, node, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    for (int i = 0; i < n; i++)
      if (f[i] != 2.0f * (0.5f * (float)i + 0.25f)) return fail("echo-float", i, f[i], 2.0 * (0.5 * i + 0.25));
  } else if (strcmp(app, "pingpong") == 0) {
    for (int it = 0; it < iters; it++) {
      for (int i = 0; i < n; i++) v[i] = it * 1000 + i;
      MPI_Send(v, n, MPI_INT, node, 0, MPI_COMM_WORLD);
      MPI_Recv(v, n, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      for (int i = 0; i < n; i++) if (v[i] != it * 1000 + i) return fail("pingpong", i, v[i], it * 1000 + i);
    }
  } else if (strcmp(app, "send-large") == 0 || strcmp(app, "corrupt") == 0) {
    const int large = strcmp(app, "send-large") == 0;
    if (!large) MPI_Send(&n, 1, MPI_INT, node, 0, MPI_COMM_WORLD);  /* "I am up" */
    MPI_Recv(v, n, MPI_INT, node, 0, MPI_COMM_WORLD, &st);
    for (int i = 0; i < n; i++) {
      const int want = large ? 3 * i + 1 : i;
      if (v[i] != want) return fail(app, i, v[i], want);
    }
  } else if (strcmp(app, "recv-check") == 0 || strcmp(app, "wrong-type") == 0) {
    if (strcmp(app, "wrong-type") == 0) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      double d[2] = {1, 2};
      short s[2] = {1, 2};
      expect_error(MPI_Send(d, 2, MPI_DOUBLE, node, 0, MPI_COMM_WORLD), "MPI_Send of MPI_DOUBLE");
      expect_error(MPI_Send(s, 2, MPI_SHORT, node, 0, MPI_COMM_WORLD), "MPI_Send of MPI_SHORT");
      expect_error(MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
      expect_error(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      MPI_Comm dup;
      expect_error(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
    }
    for (int i = 0; i < n; i++) v[i] = 7 * i;
    MPI_Ssend(v, n, MPI_INT, node, 0, MPI_COMM_WORLD);
  } else {
    printf("partner: unknown app %s\n", app);
    return 2;
  }
  printf("partner: OK %s %d\n", app, n);
  fflush(stdout);
  free(v);
  free(f);
  MPI_Finalize();
  return 0;
}
