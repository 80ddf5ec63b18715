/* A program that uses only the MPI 4 sessions model: it never calls MPI_Init or
 * MPI_Finalize (test_mpi.py). With argument "bad" it first passes a made-up session
 * handle, which the initial error handler (MPI_ERRORS_ARE_FATAL) must report. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int n = 0, rank, size, sum = 0, flag = 1;
    if (argc > 1 && strcmp(argv[1], "bad") == 0)
        MPI_Session_get_num_psets(MPI_Session_f2c(42), MPI_INFO_NULL, &n);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "session_only", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
    MPI_Group_free(&g);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    MPI_Comm_free(&c);
    MPI_Initialized(&flag);
    MPI_Session_finalize(&s);
    if (rank == 0)
        printf("session only: %d ranks, sum %d (expected %d), MPI_Initialized %d: %s\n", size, sum,
               size * (size - 1) / 2, flag, sum == size * (size - 1) / 2 && !flag ? "correct" : "WRONG");
    return 0;
}
