/* A device dies inside a distributed task (argv[1]: "exit" calls _exit(3), "abort"
 * aborts); the host's il_dist_taskwait must fail naming that device's rank instead of
 * hanging. The host prints "LOST <message>". Run with --devices 2 and a long --grace. */
#include <ompif.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int mode_abort;

static void die(void* const* regions, const void* args, size_t n) {
  (void)regions;
  (void)n;
  int victim;
  memcpy(&victim, args, sizeof victim);
  if (il_dist_device() != victim) return;
  if (mode_abort) abort();
  _exit(3);
}

int main(int argc, char** argv) {
  mode_abort = argc > 1 && strcmp(argv[1], "abort") == 0;
  il_dist_register("die", die);
  if (il_dist_init() != 1) return 0;
  int victim = nanos6_dist_num_devices() - 1;
  CHECK(il_dist_spawn("die", NULL, 0, &victim, sizeof victim) == 0, "%s",
        il_dist_error_message());
  int rc = il_dist_taskwait();
  CHECK(rc == -1, "taskwait succeeded though device %d died", victim);
  printf("LOST %s\n", il_dist_error_message());
  fflush(stdout);
  return 0;
}
