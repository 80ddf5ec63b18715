/* N-body, version (a): the serial reference on one core (docs/nbody.md).
 *   ./nbody_serial --n 4096 --bs 256 --iters 4 [--seed 42] [--check] */
#include "nbody_common.h"

int main(int argc, char** argv) {
  nb_args a = nb_parse(argc, argv, 1);
  nb_particle* p = malloc(sizeof(nb_particle) * a.n);
  float* f = malloc(sizeof(float) * 3 * a.n);
  if (!p || !f) { fprintf(stderr, "nbody_serial: out of memory for n=%ld\n", a.n); return 1; }
  nb_init(p, a.n, a.seed);
  double t0 = nb_now();
  nb_serial_run(p, f, &a);
  int rc = nb_report("serial", 1, &a, nb_now() - t0, p);
  free(p);
  free(f);
  return rc;
}
