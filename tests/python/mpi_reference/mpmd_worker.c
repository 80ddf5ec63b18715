/* MPMD pair, worker side: see mpmd_manager.c. */
#include <mpi.h>
#include <stdio.h>

enum { TAG_TASK = 1, TAG_RESULT = 2 };

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int task[2];
    MPI_Recv(task, 2, MPI_INT, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long long part = 0;
    for (long long x = task[0]; x <= task[1]; x++)
        part += x;
    MPI_Send(&part, 1, MPI_LONG_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    int mine = rank * 10 + 1;
    MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    long long reduced = 0;
    MPI_Reduce(&part, &reduced, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
