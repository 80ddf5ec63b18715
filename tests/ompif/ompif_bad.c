/* OMPIF bad input. Mode "default": a tag of 300 with the default handler (the rank
 * exits 1 naming the tag). Mode "handler": every kind of bad input with a handler that
 * prints "ERR <code> <message>" and returns; the program checks that each call reported
 * exactly once. Run with 2 ranks. */
#include <ompif.h>
#include <string.h>

#include "check.h"


int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "handler";
  int rank = OMPIF_Comm_rank(OMPIF_COMM_WORLD);
  int size = OMPIF_Comm_size(OMPIF_COMM_WORLD);
  CHECK(size == 2, "run with 2 ranks, not %d", size);
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  if (strcmp(mode, "default") == 0) {
    if (rank == 0) OMPIF_Send(v, 1, OMPIF_INT, 1, 300, OMPIF_COMM_WORLD);
    printf("rank %d did not report\n", rank);
    return 0;
  }
  OMPIF_Error_handler old = OMPIF_Set_error_handler(record);
  CHECK(old != NULL, "no previous handler");
  EXPECT_ERROR(OMPIF_Send(v, 1, OMPIF_INT, 1, 300, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Recv(v, 1, OMPIF_INT, 1, -1, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Send(v, 1, OMPIF_INT, 9, 0, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Recv(v, 1, OMPIF_INT, -3, 0, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Send(v, -2, OMPIF_INT, 1, 0, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Send(v, 1, (OMPIF_Datatype)77, 1, 0, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Send(v, 1, OMPIF_INT, 1, 0, (OMPIF_Comm)5));
  EXPECT_ERROR(OMPIF_Bcast(v, 1, OMPIF_INT, 4, OMPIF_COMM_WORLD));
  EXPECT_ERROR(OMPIF_Comm_size((OMPIF_Comm)1));
  /* Counts that do not match the message: shorter and longer receives. */
  if (rank == 0) {
    OMPIF_Send(v, 4, OMPIF_INT, 1, 5, OMPIF_COMM_WORLD);
    OMPIF_Send(v, 4, OMPIF_INT, 1, 6, OMPIF_COMM_WORLD);
  } else {
    int w[8];
    EXPECT_ERROR(OMPIF_Recv(w, 3, OMPIF_INT, 0, 5, OMPIF_COMM_WORLD));
    EXPECT_ERROR(OMPIF_Recv(w, 5, OMPIF_INT, 0, 6, OMPIF_COMM_WORLD));
  }
  /* The runtime still works after reported errors. */
  int x = rank == 0 ? 42 : 0;
  OMPIF_Bcast(&x, 1, OMPIF_INT, 0, OMPIF_COMM_WORLD);
  CHECK(x == 42, "x=%d", x);
  printf("OK ompif_bad rank %d\n", rank);
  return 0;
}
