/* pes: 1 2 3 4 8 */
/* OpenSHMEM 1.5 teams: the predefined teams, split_strided (positive, negative and
 * zero stride; a bad triplet returns nonzero and SHMEM_TEAM_INVALID), split_2d
 * (coordinates as the specification's table), translate_pe, get_config, sync,
 * contexts made from a team, destroy, and splits of a split team. */
#include "check.h"

static int me, npes;
static int mailbox; /* symmetric (static data) */

static void check_world(void) {
  CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "team_my_pe(WORLD) = %d", shmem_team_my_pe(SHMEM_TEAM_WORLD));
  CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "team_n_pes(WORLD)");
  CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID) must be -1");
  CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID) must be -1");
  /* the shared team holds this PE; translating back and forth is the identity */
  int sme = shmem_team_my_pe(SHMEM_TEAM_SHARED), sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  CHECK(sn >= 1 && sn <= npes && sme >= 0 && sme < sn, "shared team: my_pe %d of %d", sme, sn);
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD) == me, "shared -> world");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED) == sme, "world -> shared");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1, "translate of PE npes");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD) == -1, "translate of PE -1");
  CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate from INVALID");
  if (getenv("EXPECT_SHARED_ALL")) CHECK(sn == npes, "shm: the shared team has %d of %d PEs", sn, npes);
  if (getenv("EXPECT_SHARED_SELF")) CHECK(sn == 1, "tcp: the shared team has %d PEs", sn);
  shmem_team_config_t cfg = {7};
  CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 0,
        "world config num_contexts %d", cfg.num_contexts);
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "config of INVALID");
  CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync(WORLD)");
  CHECK(shmem_sync(SHMEM_TEAM_SHARED) == 0, "shmem_sync(SHARED)");
}

static void check_strided(int start, int stride, int size) {
  shmem_team_config_t cfg = {3};
  shmem_team_t t = (shmem_team_t)(uintptr_t)12345;
  int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t);
  CHECK(rc == 0, "split_strided(%d, %d, %d) returned %d", start, stride, size, rc);
  int idx = -1;
  for (int i = 0; i < size; ++i)
    if (start + i * stride == me) idx = i;
  if (idx < 0) {
    CHECK(t == SHMEM_TEAM_INVALID, "split_strided(%d, %d, %d): non-member got a team", start, stride, size);
    return;
  }
  CHECK(t != SHMEM_TEAM_INVALID, "split_strided(%d, %d, %d): member got INVALID", start, stride, size);
  CHECK(shmem_team_my_pe(t) == idx, "split_strided(%d,%d,%d) my_pe %d, want %d", start, stride, size,
        shmem_team_my_pe(t), idx);
  CHECK(shmem_team_n_pes(t) == size, "n_pes %d, want %d", shmem_team_n_pes(t), size);
  for (int i = 0; i < size; ++i) {
    CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) == start + i * stride, "translate %d", i);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + i * stride, t) == i, "translate back %d", i);
  }
  for (int pe = 0; pe < npes; ++pe) {
    int in = 0;
    for (int i = 0; i < size; ++i) in |= start + i * stride == pe;
    if (!in) CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, t) == -1, "non-member %d translated", pe);
  }
  shmem_team_config_t got = {0};
  CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 3,
        "config num_contexts %d, want 3", got.num_contexts);
  CHECK(shmem_team_sync(t) == 0, "team_sync");

  /* a context of the team reports it, and its PE numbers are the team's: each PE puts
   * its world PE to the next PE of the team */
  shmem_ctx_t ctx;
  CHECK(shmem_team_create_ctx(t, 0, &ctx) == 0, "team_create_ctx");
  shmem_team_t back = SHMEM_TEAM_INVALID;
  CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == t, "ctx_get_team");
  mailbox = -1;
  shmem_team_sync(t);
  shmem_ctx_int_p(ctx, &mailbox, me, (idx + 1) % size);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(t);
  int from = start + ((idx + size - 1) % size) * stride;
  CHECK(mailbox == from, "team ctx put: mailbox %d, want world PE %d", mailbox, from);
  shmem_team_sync(t);
  shmem_ctx_destroy(ctx);

  /* a split of the split team: its first half, numbered inside t */
  shmem_team_t half;
  CHECK(shmem_team_split_strided(t, 0, 1, (size + 1) / 2, NULL, 0, &half) == 0, "split of a split");
  if (idx < (size + 1) / 2) {
    CHECK(shmem_team_my_pe(half) == idx, "half my_pe");
    CHECK(shmem_team_translate_pe(half, idx, SHMEM_TEAM_WORLD) == me, "half translate");
    shmem_team_destroy(half);
  } else {
    CHECK(half == SHMEM_TEAM_INVALID, "half: non-member got a team");
  }
  shmem_team_destroy(t);
}

static void check_invalid_triplets(void) {
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "size npes+1 accepted");
  t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes, 1, 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "start npes accepted");
  t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "size 0 accepted");
  if (npes >= 2) {
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
          "stride 0 with size 2 accepted");
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
          "a wrap-around below PE 0 accepted");
  }
  t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "parent INVALID accepted");
  shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
            y == SHMEM_TEAM_INVALID, "xrange 0 accepted");
  shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
  shmem_ctx_t ctx;
  CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID, "ctx of INVALID");
  shmem_team_t back;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &back) == 0 && back == SHMEM_TEAM_WORLD, "default ctx team");
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &back) != 0 && back == SHMEM_TEAM_INVALID, "INVALID ctx team");
}

static void check_2d(int xrange) {
  shmem_team_t x, y;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d(%d)", xrange);
  int xr = xrange < npes ? xrange : npes;
  int want_x = me % xr, want_y = me / xr;
  int xsize = (me / xr == (npes - 1) / xr) ? npes - (npes - 1) / xr * xr : xr;
  int ysize = (npes - 1 - me % xr) / xr + 1;
  CHECK(shmem_team_my_pe(x) == want_x, "2d(%d): x team my_pe %d, want %d", xrange, shmem_team_my_pe(x), want_x);
  CHECK(shmem_team_my_pe(y) == want_y, "2d(%d): y team my_pe %d, want %d", xrange, shmem_team_my_pe(y), want_y);
  CHECK(shmem_team_n_pes(x) == xsize, "2d(%d): x team size %d, want %d", xrange, shmem_team_n_pes(x), xsize);
  CHECK(shmem_team_n_pes(y) == ysize, "2d(%d): y team size %d, want %d", xrange, shmem_team_n_pes(y), ysize);
  CHECK(shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD) == want_y * xr, "x team PE 0 is world %d",
        shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD));
  CHECK(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD) == want_x, "y team PE 0");
  shmem_team_sync(x);
  shmem_team_sync(y);
  shmem_team_destroy(x);
  shmem_team_destroy(y);
}

int main(void) {
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  check_world();
  check_strided(0, 1, npes);                      /* everyone */
  check_strided(0, 2, (npes + 1) / 2);            /* even PEs */
  if (npes >= 2) check_strided(1, 2, npes / 2);   /* odd PEs */
  check_strided(npes - 1, -1, npes);              /* reversed */
  if (npes >= 3) check_strided(npes - 1, -2, (npes + 1) / 2);
  check_strided(npes / 2, 0, 1);                  /* one PE, stride 0 */
  check_invalid_triplets();
  check_2d(1);
  check_2d(2);
  check_2d(3);
  check_2d(npes + 5);                             /* one row */
  /* many teams made and destroyed: handles never collide */
  for (int i = 0; i < 50; ++i) {
    shmem_team_t t;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0, "split %d", i);
    shmem_team_sync(t);
    shmem_team_destroy(t);
  }
  shmem_barrier_all();
  if (me == 0) printf("OK team_split\n");
  shmem_finalize();
  return 0;
}
