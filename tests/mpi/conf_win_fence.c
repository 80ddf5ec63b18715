/* ranks: 1 2 3 4 8 */
/* Active-target one-sided communication with MPI_Win_fence: put, get and
 * accumulate between every pair of ranks, derived target datatypes, a transfer larger
 * than one message, the NOPRECEDE/NOSUCCEED assertions and the window attributes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;
static int deleted;

static int count_delete(MPI_Win win, int keyval, void *val, void *extra) {
  (void)win, (void)keyval, (void)extra;
  deleted += *(int *)val;
  return MPI_SUCCESS;
}

static void check(int ok, const char *what, long got, long want) {
  if (!ok) {
    fprintf(stderr, "FAIL: rank %d: %s: got %ld, want %ld\n", me, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
#define EXPECT(what, got, want) check((long)(got) == (long)(want), what, (long)(got), (long)(want))

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  /* Layout of each rank's window (ints): [0, np) written by put from rank r at r,
   * [np, 2np) read by others, [2np] an accumulate counter, then 8 for a vector. */
  const int n = 2 * np + 1 + 8;
  int *buf = calloc(n, sizeof(int));
  for (int i = 0; i < np; ++i) buf[np + i] = 1000 * me + i;
  MPI_Win win;
  MPI_Win_create(buf, (MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

  void *base; MPI_Aint *size; int *du, *flavor, *model, flag;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  check(flag && base == buf, "MPI_WIN_BASE is the buffer", flag, 1);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
  EXPECT("MPI_WIN_SIZE", *size, n * sizeof(int));
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
  EXPECT("MPI_WIN_DISP_UNIT", *du, sizeof(int));
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  EXPECT("MPI_WIN_CREATE_FLAVOR", *flavor, MPI_WIN_FLAVOR_CREATE);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  check(*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE, "MPI_WIN_MODEL", *model, MPI_WIN_UNIFIED);

  /* Name, info and a user attribute whose delete callback MPI_Win_free runs. */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Win_set_name(win, "fence window");
  MPI_Win_get_name(win, name, &len);
  check(strcmp(name, "fence window") == 0 && len == 12, "MPI_Win_get_name", len, 12);
  MPI_Info info;
  MPI_Win_get_info(win, &info);
  check(info != MPI_INFO_NULL, "MPI_Win_get_info returns an info object", 0, 1);
  MPI_Info_free(&info);
  int kv, one_attr = 1;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &kv, NULL);
  MPI_Win_set_attr(win, kv, &one_attr);

  /* Put: every rank writes 100*me + t into slot me of every target t. */
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  int vals[64];
  for (int t = 0; t < np; ++t) {
    vals[t] = 100 * me + t;
    MPI_Put(&vals[t], 1, MPI_INT, t, me, 1, MPI_INT, win);
  }
  MPI_Win_fence(0, win);
  for (int r = 0; r < np; ++r) EXPECT("put from every rank", buf[r], 100 * r + me);

  /* Get: read the whole read-only area of the next rank. */
  int got[64];
  const int next = (me + 1) % np;
  MPI_Get(got, np, MPI_INT, next, np, np, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) EXPECT("get from the next rank", got[i], 1000 * next + i);

  /* Accumulate: every rank adds me+1 to each target's counter, and MPI_REPLACE
   * / MPI_MAX on disjoint slots of the vector area. */
  int one = me + 1;
  for (int t = 0; t < np; ++t) MPI_Accumulate(&one, 1, MPI_INT, t, 2 * np, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  EXPECT("accumulate MPI_SUM from every rank", buf[2 * np], np * (np + 1) / 2);
  for (int t = 0; t < np; ++t) MPI_Accumulate(&me, 1, MPI_INT, t, 2 * np, 1, MPI_INT, MPI_MAX, win);
  MPI_Win_fence(0, win);
  EXPECT("accumulate MPI_MAX", buf[2 * np], np * (np + 1) / 2 > np - 1 ? np * (np + 1) / 2 : np - 1);

  /* A derived target type: 4 ints with stride 2 into the vector area of the next
   * rank (origin contiguous), then read back through vector types on one or both
   * sides. */
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int four[4] = {me * 10 + 1, me * 10 + 2, me * 10 + 3, me * 10 + 4};
  MPI_Put(four, 4, MPI_INT, next, 2 * np + 1, 1, vec, win);
  MPI_Win_fence(0, win);
  const int prev = (me + np - 1) % np;
  for (int i = 0; i < 8; ++i)
    EXPECT("put through a vector target type", buf[2 * np + 1 + i], i % 2 ? 0 : prev * 10 + 1 + i / 2);
  int spread[8];
  memset(spread, 0, sizeof spread);
  int packed[4] = {0, 0, 0, 0};
  MPI_Get(spread, 1, vec, next, 2 * np + 1, 1, vec, win);
  MPI_Get(packed, 4, MPI_INT, next, 2 * np + 1, 1, vec, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (int i = 0; i < 4; ++i) {
    EXPECT("get with vector types on both sides", spread[2 * i], me * 10 + 1 + i);
    EXPECT("get with vector types on both sides (gaps untouched)", spread[2 * i + 1], 0);
    EXPECT("get from a vector target into a contiguous origin", packed[i], me * 10 + 1 + i);
  }
  MPI_Type_free(&vec);
  MPI_Win_free(&win);
  check(win == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL", win == MPI_WIN_NULL, 1);
  EXPECT("MPI_Win_free ran the attribute's delete callback", deleted, 1);
  MPI_Win_free_keyval(&kv);

  /* A transfer of 1 MiB (many messages) into a window from MPI_Win_allocate. */
  const int big = 1 << 18;
  int *mem;
  MPI_Win_allocate((MPI_Aint)big * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  EXPECT("MPI_WIN_CREATE_FLAVOR of MPI_Win_allocate", *flavor, MPI_WIN_FLAVOR_ALLOCATE);
  int *src = malloc((size_t)big * sizeof(int));
  for (int i = 0; i < big; ++i) src[i] = i ^ me;
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  MPI_Put(src, big, MPI_INT, next, 0, big, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSTORE, win);
  for (int i = 0; i < big; ++i)
    if (mem[i] != (i ^ prev)) EXPECT("1 MiB put", mem[i], i ^ prev);
  memset(src, 0, (size_t)big * sizeof(int));
  MPI_Get(src, big, MPI_INT, prev, 0, big, MPI_INT, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (int i = 0; i < big; ++i)
    if (src[i] != (i ^ ((prev + np - 1) % np))) EXPECT("1 MiB get", src[i], i ^ ((prev + np - 1) % np));
  MPI_Win_free(&win);
  free(src);
  free(buf);

  /* MPI_SUM on MPI_CHAR through MPI_Get_accumulate, as OSU's osu_get_acc_latency
   * does: Open MPI and MPICH accept it though the standard reserves MPI_CHAR for
   * text. Every rank adds 1 to 4 bytes of every rank. */
  char *bytes, ones[4] = {1, 1, 1, 1}, old[4];
  MPI_Win_allocate(4, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bytes, &win);
  memset(bytes, 0, 4);
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  for (int t = 0; t < np; ++t) {
    MPI_Get_accumulate(ones, 4, MPI_CHAR, old, 4, MPI_CHAR, t, 0, 4, MPI_CHAR, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; ++i) check(old[i] >= 0 && old[i] < np, "MPI_CHAR get_accumulate fetched", old[i], 0);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  for (int i = 0; i < 4; ++i) EXPECT("MPI_SUM on MPI_CHAR from every rank", bytes[i], np);
  MPI_Win_free(&win);
  if (me == 0) printf("OK conf_win_fence\n");
  MPI_Finalize();
  return 0;
}
