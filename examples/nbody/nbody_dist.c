/* N-body, version (b) with a host: the host spawns Algorithm 1 as one distributed task
 * (seed paper section III-B2) on P devices, `interlace run -n P+1 ./nbody_dist ...`
 * (rank INTERLACE_TASK_HOST, default 0, is the host). Clauses:
 *   broadcast(particles)  every device gets all particles (forces are computed against
 *                         every block);
 *   gather(result)        device d hands back its n/P particles at the end.
 * Each device runs nbody_tasks.h's loop with local tasks and OMPIF among the devices;
 * the host only waits (il_dist_taskwait) and checks. */
#include "nbody_tasks.h"

typedef struct {
  nb_args a;
} nbd_args;

static void nbody_device(void* const* regions, const void* args, size_t args_size) {
  nbd_args d;
  memcpy(&d, args, sizeof d < args_size ? sizeof d : args_size);
  nb_particle* p = regions[0];
  float* f = calloc(3 * d.a.n, sizeof(float));
  if (!f) { fprintf(stderr, "nbody_dist: out of memory for n=%ld\n", d.a.n); exit(1); }
  double seconds = nbt_run(p, f, &d.a);
  long mine = d.a.n / OMPIF_Comm_size(OMPIF_COMM_WORLD);
  memcpy(regions[1], p + mine * OMPIF_Comm_rank(OMPIF_COMM_WORLD), sizeof(nb_particle) * mine);
  if (OMPIF_Comm_rank(OMPIF_COMM_WORLD) == 0) printf("# device time %.6f s\n", seconds);
  free(f);
}

static void dist_check(int rc, const char* what) {
  if (rc < 0) {
    fprintf(stderr, "nbody_dist: %s failed: %s\n", what, il_dist_error_message());
    exit(1);
  }
}

int main(int argc, char** argv) {
  dist_check(il_dist_register("nbody", nbody_device), "il_dist_register");
  int host = il_dist_init();
  dist_check(host, "il_dist_init");
  if (!host) return 0;  /* a device: served the host until it finished */
  int devices = nanos6_dist_num_devices();
  nbd_args d = {nb_parse(argc, argv, devices)};
  nb_particle* p = malloc(sizeof(nb_particle) * d.a.n);
  nb_particle* out = malloc(sizeof(nb_particle) * d.a.n);
  if (!p || !out) { fprintf(stderr, "nbody_dist: out of memory for n=%ld\n", d.a.n); return 1; }
  nb_init(p, d.a.n, d.a.seed);
  il_dist_clause_t clauses[2] = {
      {IL_DIST_BROADCAST, p, sizeof(nb_particle) * d.a.n, 0},
      {IL_DIST_GATHER, out, sizeof(nb_particle) * d.a.n, 0},
  };
  double t0 = nb_now();
  dist_check(il_dist_spawn("nbody", clauses, 2, &d, sizeof d), "il_dist_spawn");
  dist_check(il_dist_taskwait(), "il_dist_taskwait");
  double seconds = nb_now() - t0;  /* with the copies in and out, as a host sees it */
  int rc = nb_report("dist", devices, &d.a, seconds, out);
  dist_check(il_dist_finalize(), "il_dist_finalize");
  free(p);
  free(out);
  return rc;
}
