/* ranks: 1 2 3 4 8 */
/* Environment: Initialized/Finalized around Init_thread and Finalize, Get_version
 * before Init, thread level queries, rank/size of MPI_COMM_WORLD and MPI_COMM_SELF,
 * Wtime/Wtick, processor name, library version, predefined attributes (MPI_TAG_UB,
 * MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM) through
 * MPI_Comm_get_attr and MPI_Attr_get. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank = -1, nranks;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

static void attributes(MPI_Comm comm) {
  int* value;
  int flag = -1;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &flag);
  CHECK(flag == 1 && *value >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *value : 0);
  int tag_ub = *value;
  MPI_Attr_get(comm, MPI_TAG_UB, &value, &flag);
  CHECK(flag == 1 && *value == tag_ub, "MPI_Attr_get(MPI_TAG_UB): flag %d", flag);
  /* The largest tag is usable. */
  int out = 5, in = 0;
  MPI_Sendrecv(&out, 1, MPI_INT, rank, tag_ub, &in, 1, MPI_INT, rank, tag_ub, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  CHECK(in == 5, "message with tag MPI_TAG_UB");
  MPI_Comm_get_attr(comm, MPI_HOST, &value, &flag);
  CHECK(flag == 1, "MPI_HOST is not set");
  CHECK(*value == MPI_PROC_NULL || (*value >= 0 && *value < nranks), "MPI_HOST value %d", *value);
  MPI_Comm_get_attr(comm, MPI_IO, &value, &flag);
  CHECK(flag == 1 && (*value == MPI_ANY_SOURCE || *value == MPI_PROC_NULL ||
                      (*value >= 0 && *value < nranks)),
        "MPI_IO: flag %d value %d", flag, flag ? *value : 0);
  MPI_Comm_get_attr(comm, MPI_WTIME_IS_GLOBAL, &value, &flag);
  CHECK(!flag || *value == 0 || *value == 1, "MPI_WTIME_IS_GLOBAL value %d", *value);
  MPI_Comm_get_attr(comm, MPI_UNIVERSE_SIZE, &value, &flag);
  /* A hint of the slots available (Open MPI: cores when oversubscribed). */
  CHECK(!flag || *value >= 1, "MPI_UNIVERSE_SIZE %d", *value);
  MPI_Comm_get_attr(comm, MPI_APPNUM, &value, &flag);
  CHECK(!flag || *value >= 0, "MPI_APPNUM value %d", *value);
}

#ifdef INTERLACE_MPI
/* Values interlace documents (docs/mpi.md); other MPIs may choose differently. */
static void interlace_values(int provided) {
  int* value;
  int flag;
  CHECK(provided == MPI_THREAD_FUNNELED, "Init_thread(FUNNELED) provided %d", provided);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  CHECK(flag && *value == 2147483647, "MPI_TAG_UB %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag);
  CHECK(flag && *value == MPI_PROC_NULL, "MPI_HOST %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &value, &flag);
  CHECK(flag && *value == rank, "MPI_IO %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag);
  CHECK(flag && *value == 0, "MPI_WTIME_IS_GLOBAL %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
  CHECK(flag && *value == nranks, "MPI_UNIVERSE_SIZE %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag);
  CHECK(flag == 0, "MPI_APPNUM is set");
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(lib, &len);
  CHECK(strncmp(lib, "interlace ", 10) == 0 && strstr(lib, "(MPI 3.1 subset)"),
        "library version \"%s\"", lib);
}
#endif

int main(int argc, char** argv) {
  int flag = -1, version = 0, subversion = -1, provided = -1, len = 0;
  MPI_Initialized(&flag);
  if (flag != 0) { fprintf(stderr, "FAIL: Initialized before Init is %d\n", flag); return 1; }
  MPI_Finalized(&flag);
  if (flag != 0) { fprintf(stderr, "FAIL: Finalized before Init is %d\n", flag); return 1; }
  MPI_Get_version(&version, &subversion);
  if (version < 3) { fprintf(stderr, "FAIL: Get_version %d.%d\n", version, subversion); return 1; }

  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Initialized(&flag);
  CHECK(flag == 1, "Initialized after Init is %d", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 0, "Finalized before Finalize is %d", flag);
  int level = -1;
  MPI_Query_thread(&level);
  CHECK(level == provided, "Query_thread %d, Init_thread provided %d", level, provided);
  MPI_Is_thread_main(&flag);
  CHECK(flag == 1, "Is_thread_main on the main thread is %d", flag);

  CHECK(nranks >= 1 && rank >= 0 && rank < nranks, "rank %d size %d", rank, nranks);
  int self_rank = -1, self_size = -1;
  MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
  MPI_Comm_size(MPI_COMM_SELF, &self_size);
  CHECK(self_rank == 0 && self_size == 1, "MPI_COMM_SELF rank %d size %d", self_rank, self_size);
  /* Every rank reports its rank to rank 0, which checks it saw each once. */
  int sum = 0, expect = nranks * (nranks - 1) / 2;
  if (rank != 0) {
    MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  } else {
    for (int i = 1; i < nranks; ++i) {
      int r;
      MPI_Recv(&r, 1, MPI_INT, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(r == i, "rank %d reported rank %d", i, r);
      sum += r;
    }
    CHECK(sum == expect, "ranks sum to %d, expected %d", sum, expect);
  }

  double t0 = MPI_Wtime(), tick = MPI_Wtick();
  CHECK(tick > 0 && tick <= 1.0, "Wtick %g", tick);
  double t1 = t0;
  for (int i = 0; i < 1000000 && t1 == t0; ++i) t1 = MPI_Wtime();
  CHECK(t1 > t0, "Wtime does not advance (%g)", t0);
  double t2 = MPI_Wtime();
  CHECK(t2 >= t1 && t2 - t0 < 60, "Wtime went backwards or jumped: %g %g %g", t0, t1, t2);

  char name[MPI_MAX_PROCESSOR_NAME];
  memset(name, 'x', sizeof name);
  MPI_Get_processor_name(name, &len);
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len,
        "Get_processor_name length %d", len);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(lib, &len);
  /* Open MPI 4.1 counts the terminating NUL in len; accept both. */
  CHECK(len > 0 && len <= MPI_MAX_LIBRARY_VERSION_STRING &&
            ((int)strlen(lib) == len || (int)strlen(lib) + 1 == len),
        "Get_library_version length %d for a string of %d", len, (int)strlen(lib));
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "Get_version %d.%d", version,
        subversion);

  attributes(MPI_COMM_WORLD);
#ifdef INTERLACE_MPI
  interlace_values(provided);
#endif

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_env\n");
  MPI_Finalize();
  MPI_Finalized(&flag);
  if (flag != 1) { fprintf(stderr, "FAIL: Finalized after Finalize is %d\n", flag); return 1; }
  MPI_Initialized(&flag);
  if (flag != 1) { fprintf(stderr, "FAIL: Initialized after Finalize is %d\n", flag); return 1; }
  return 0;
}
