/* pes: 1 2 3 4 8 */
/* Teams (OpenSHMEM 1.5): SHMEM_TEAM_WORLD/SHARED, team_my_pe/n_pes, split_strided
 * (evens, a stride of 3, a single PE, an invalid split), split_2d, translate_pe,
 * get_config, team_create_ctx, destroy, and RMA to a team member through
 * translate_pe. OSHMEM (1.4) has no teams: there it only prints OK. */
#include "check.h"

#if SHMEM_TEST_15
static int hits[64];

static void run(int me, int n) {
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "team_my_pe(WORLD)");
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n, "team_n_pes(WORLD)");
  int sh = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  CHECK(sh >= 1 && sh <= n, "team_n_pes(SHARED) = %d", sh);
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1, "team_my_pe(INVALID)");
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1, "team_n_pes(INVALID)");

  /* evens: start 0, stride 2 */
  shmem_team_t ev = SHMEM_TEAM_INVALID;
  int nev = (n + 1) / 2;
  int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &ev);
  CHECK_EQ(rc, 0, "split_strided(evens)");
  if (me % 2 == 0) {
    CHECK(ev != SHMEM_TEAM_INVALID, "an even PE got SHMEM_TEAM_INVALID");
    CHECK_EQ(shmem_team_my_pe(ev), me / 2, "team_my_pe(evens)");
    CHECK_EQ(shmem_team_n_pes(ev), nev, "team_n_pes(evens)");
    for (int i = 0; i < nev; ++i)
      CHECK_EQ(shmem_team_translate_pe(ev, i, SHMEM_TEAM_WORLD), 2 * i, "translate evens->world");
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, ev), me / 2, "translate world->evens");
    if (n > 1) CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, ev), -1,
                        "translate of an odd PE into evens");
    CHECK_EQ(shmem_team_translate_pe(ev, nev, SHMEM_TEAM_WORLD), -1, "translate out of range");
    shmem_team_config_t cfg;
    CHECK_EQ(shmem_team_get_config(ev, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0, "team_get_config");
    /* RMA to the next even PE through translate_pe */
    int to = shmem_team_translate_pe(ev, (me / 2 + 1) % nev, SHMEM_TEAM_WORLD);
    shmem_int_atomic_add(&hits[me], 1, to);
    shmem_ctx_t c;
    if (shmem_team_create_ctx(ev, 0, &c) == 0) {
      shmem_team_t back;
      CHECK_EQ(shmem_ctx_get_team(c, &back), 0, "ctx_get_team");
      CHECK(back == ev, "team of a team context is the team");
      /* on a team context, PE numbers are team numbers */
      shmem_ctx_int_atomic_add(c, &hits[me], 10, (me / 2 + 1) % nev);
      shmem_ctx_quiet(c);
      shmem_ctx_destroy(c);
    } else {
      CHECK(0, "team_create_ctx failed");
    }
  } else {
    CHECK(ev == SHMEM_TEAM_INVALID, "an odd PE got a team from the evens split");
    CHECK_EQ(shmem_team_my_pe(ev), -1, "team_my_pe of INVALID on an odd PE");
  }
  shmem_barrier_all();
  if (me % 2 == 0) {
    int from = 2 * ((me / 2 + nev - 1) % nev);
    CHECK_EQ(hits[from], 11, "hits from the previous even PE");
  }
  if (ev != SHMEM_TEAM_INVALID) shmem_team_destroy(ev);

  /* stride 3 from PE 1, and a single-PE team */
  if (n >= 4) {
    shmem_team_t t3;
    int size3 = (n - 1 + 2) / 3;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 3, size3, NULL, 0, &t3), 0,
             "split_strided(1,3)");
    if (me >= 1 && (me - 1) % 3 == 0) {
      CHECK_EQ(shmem_team_my_pe(t3), (me - 1) / 3, "team_my_pe(stride 3)");
      CHECK_EQ(shmem_team_n_pes(t3), size3, "team_n_pes(stride 3)");
      shmem_team_destroy(t3);
    } else {
      CHECK(t3 == SHMEM_TEAM_INVALID, "PE %d not in the stride-3 team got one", me);
    }
  }
  shmem_team_t one;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, 1, 1, NULL, 0, &one), 0,
           "split_strided(single PE)");
  if (me == n - 1) {
    CHECK_EQ(shmem_team_n_pes(one), 1, "single-PE team size");
    shmem_team_destroy(one);
  }

  /* split_2d: x extent 2 gives rows of 2 and columns */
  shmem_team_t xt, yt;
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt), 0, "split_2d");
  int xs = n < 2 ? n : 2, ys = (n + 1) / 2;
  CHECK_EQ(shmem_team_my_pe(xt), me % 2, "split_2d x my_pe");
  CHECK_EQ(shmem_team_n_pes(xt), (me / 2 == ys - 1 && n % 2) ? 1 : xs, "split_2d x n_pes");
  CHECK_EQ(shmem_team_my_pe(yt), me / 2, "split_2d y my_pe");
  CHECK_EQ(shmem_team_n_pes(yt), me % 2 == 0 ? ys : n / 2, "split_2d y n_pes");
  CHECK_EQ(shmem_team_translate_pe(yt, 0, SHMEM_TEAM_WORLD), me % 2, "split_2d y member 0");
  shmem_team_sync(xt);
  shmem_team_sync(yt);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);

  /* a split of a split: the evens of the evens */
  shmem_team_t e1, e2 = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &e1);
  if (e1 != SHMEM_TEAM_INVALID) {
    int n2 = (nev + 1) / 2;
    CHECK_EQ(shmem_team_split_strided(e1, 0, 2, n2, NULL, 0, &e2), 0, "split of a split");
    if (me % 4 == 0) {
      CHECK_EQ(shmem_team_my_pe(e2), me / 4, "my_pe in the evens of the evens");
      CHECK_EQ(shmem_team_translate_pe(e2, shmem_team_my_pe(e2), SHMEM_TEAM_WORLD), me,
               "translate back to world");
      shmem_team_destroy(e2);
    }
    shmem_team_destroy(e1);
  }
  shmem_barrier_all();
}
#endif

int main(void) {
  check_begin();
  shmem_init();
#if SHMEM_TEST_15
  run(shmem_my_pe(), shmem_n_pes());
#endif
  return check_finish("teams");
}
