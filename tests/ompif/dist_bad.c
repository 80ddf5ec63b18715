/* Bad input to distributed tasks; the host prints "BAD <message>" for each rejected
 * spawn (the test checks the values named), a device that tries to spawn reports what
 * it got through a receive clause. Run with --devices 2. */
#include <ompif.h>
#include <string.h>

#include "check.h"

static void noop(void* const* regions, const void* args, size_t n) {
  (void)regions;
  (void)args;
  (void)n;
}

/* Device 0 tries to spawn a distributed task and returns the error text. */
static void nested(void* const* regions, const void* args, size_t n) {
  (void)args;
  (void)n;
  char* text = regions[0];
  if (!text) return;
  int rc = il_dist_spawn("noop", NULL, 0, NULL, 0);
  snprintf(text, 512, "rc=%d %s", rc, il_dist_error_message());
}

static void expect_bad(const char* what, const il_dist_clause_t* cl, int n) {
  int rc = il_dist_spawn("noop", cl, n, NULL, 0);
  CHECK(rc == -1, "%s was accepted", what);
  printf("BAD %s: %s\n", what, il_dist_error_message());
}

int main(void) {
  il_dist_register("noop", noop);
  il_dist_register("nested", nested);
  if (il_dist_init() != 1) return 0;
  int P = nanos6_dist_num_devices();
  CHECK(P == 2, "run with --devices 2, not %d", P);
  char buf[101];
  il_dist_clause_t scatter = {IL_DIST_SCATTER, buf, 101, 0};
  expect_bad("scatter", &scatter, 1);
  il_dist_clause_t gather = {IL_DIST_GATHER, buf, 7, 0};
  expect_bad("gather", &gather, 1);
  int64_t len = -8; /* a negative length converted to the uint64_t size */
  il_dist_clause_t negative = {IL_DIST_BROADCAST, buf, (uint64_t)len, 0};
  expect_bad("negative", &negative, 1);
  il_dist_clause_t send = {IL_DIST_SEND, buf, 4, 5};
  expect_bad("send", &send, 1);
  il_dist_clause_t recv = {IL_DIST_RECEIVE, buf, 4, -1};
  expect_bad("receive", &recv, 1);
  il_dist_clause_t kind = {42, buf, 4, 0};
  expect_bad("kind", &kind, 1);
  CHECK(il_dist_spawn("nosuch", NULL, 0, NULL, 0) == -1, "unknown function accepted");
  printf("BAD unknown: %s\n", il_dist_error_message());
  /* A distributed task spawned from a device. */
  char text[512] = {0};
  il_dist_clause_t back = {IL_DIST_RECEIVE, text, sizeof text, 0};
  CHECK(il_dist_spawn("nested", &back, 1, NULL, 0) == 0, "%s", il_dist_error_message());
  CHECK(il_dist_taskwait() == 0, "%s", il_dist_error_message());
  printf("BAD device spawn: %s\n", text);
  CHECK(strncmp(text, "rc=-1 ", 6) == 0, "device spawn: %s", text);
  /* Still usable after all that. */
  CHECK(il_dist_spawn("noop", NULL, 0, NULL, 0) == 0, "%s", il_dist_error_message());
  CHECK(il_dist_taskwait() == 0, "%s", il_dist_error_message());
  il_dist_finalize();
  printf("OK dist_bad\n");
  return 0;
}
