/* ranks: 1 2 3 */
/* MPI_Alloc_mem/MPI_Free_mem (memory under a window, zero bytes, a bad size) and the
 * Fortran status conversions MPI_Status_c2f/f2c round-tripping a received status. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int me, np;

#define CHECK(cond, ...)                                 \
  do {                                                   \
    if (!(cond)) {                                       \
      fprintf(stderr, "FAIL: rank %d: ", me);            \
      fprintf(stderr, __VA_ARGS__);                      \
      fprintf(stderr, "\n");                             \
      MPI_Abort(MPI_COMM_WORLD, 1);                      \
    }                                                    \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  /* Memory from MPI_Alloc_mem under a window: every rank puts its rank into the next. */
  long *mem = NULL;
  CHECK(MPI_Alloc_mem((MPI_Aint)(4 * sizeof(long)), MPI_INFO_NULL, &mem) == MPI_SUCCESS && mem != NULL,
        "Alloc_mem of 4 longs");
  memset(mem, 0, 4 * sizeof(long));
  MPI_Win win;
  MPI_Win_create(mem, (MPI_Aint)(4 * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  long v = 100 + me;
  MPI_Put(&v, 1, MPI_LONG, (me + 1) % np, 2, 1, MPI_LONG, win);
  MPI_Win_fence(0, win);
  CHECK(mem[2] == 100 + (me + np - 1) % np, "put into Alloc_mem memory: got %ld", mem[2]);
  MPI_Win_free(&win);
  CHECK(MPI_Free_mem(mem) == MPI_SUCCESS, "Free_mem");

  void *none = NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  CHECK(MPI_Alloc_mem(0, info, &none) == MPI_SUCCESS, "Alloc_mem of 0 bytes with an info");
  CHECK(MPI_Free_mem(none) == MPI_SUCCESS, "Free_mem of the 0-byte block");
  MPI_Info_free(&info);
#ifdef INTERLACE_MPI
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls, rc = MPI_Alloc_mem(-8, MPI_INFO_NULL, &none);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_SIZE, "Alloc_mem of -8 bytes: class %d", cls);
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, "-8") != NULL, "the error names the size: %s", msg);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif

  /* A status through its Fortran form and back keeps source, tag and count. */
  int buf[3] = {1, 2, 3};
  MPI_Status st, back;
  MPI_Sendrecv(buf, 3, MPI_INT, (me + 1) % np, 40 + me, buf, 3, MPI_INT, (me + np - 1) % np, MPI_ANY_TAG,
               MPI_COMM_WORLD, &st);
#ifndef MPI_F_STATUS_SIZE /* MPI 4's C constants; Open MPI 4.1 has none */
  MPI_Fint f[16];
#else
  MPI_Fint f[MPI_F_STATUS_SIZE];
#endif
  CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "Status_c2f");
#ifdef MPI_F_SOURCE
  CHECK(f[MPI_F_SOURCE] == st.MPI_SOURCE && f[MPI_F_TAG] == st.MPI_TAG, "Fortran MPI_SOURCE/MPI_TAG");
#endif
  CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "Status_f2c");
  int count = -1;
  MPI_Get_count(&back, MPI_INT, &count);
  CHECK(back.MPI_SOURCE == (me + np - 1) % np && back.MPI_TAG == 40 + (me + np - 1) % np && count == 3,
        "status after c2f/f2c: source %d tag %d count %d", back.MPI_SOURCE, back.MPI_TAG, count);

  if (me == 0) printf("OK conf_mem\n");
  MPI_Finalize();
  return 0;
}
