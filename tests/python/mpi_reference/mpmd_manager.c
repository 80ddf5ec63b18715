/* MPMD pair, manager side (tests/python/test_mpi.py): `interlace run -n 1 ./mpmd_manager :
 * -n K ./mpmd_worker`. Both programs share MPI_COMM_WORLD. The manager sends every worker
 * its own task (the integers of a range), collects the partial sums with wildcard
 * receives, checks them and also takes part in an MPI_Reduce and an MPI_Gather with the
 * workers. Plain MPI: the same two sources run under `mpirun -n 1 a : -n K b`. */
#include <mpi.h>
#include <stdio.h>

enum { TAG_TASK = 1, TAG_RESULT = 2 };

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = rank != 0;
    long long total = 0, expected = 0;
    for (int w = 1; w < size; w++) { /* worker w sums the integers [1000 w, 1000 w + 999] */
        int task[2] = {1000 * w, 1000 * w + 999};
        MPI_Send(task, 2, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
        for (long long x = task[0]; x <= task[1]; x++)
            expected += x;
    }
    for (int w = 1; w < size; w++) {
        long long part;
        MPI_Status st;
        MPI_Recv(&part, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        long long want = 0;
        for (long long x = 1000LL * st.MPI_SOURCE; x <= 1000LL * st.MPI_SOURCE + 999; x++)
            want += x;
        if (part != want) {
            fprintf(stderr, "FAIL: worker %d returned %lld, expected %lld\n", st.MPI_SOURCE, part,
                    want);
            bad = 1;
        }
        total += part;
    }
    /* The workers' ranks, gathered; the manager contributes -1. */
    int mine = -1, ranks[64] = {0};
    MPI_Gather(&mine, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 1; r < size && r < 64; r++)
        if (ranks[r] != r * 10 + 1)
            bad = 1;
    long long zero = 0, reduced = 0;
    MPI_Reduce(&zero, &reduced, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (reduced != expected || total != expected)
        bad = 1;
    printf("mpmd manager: %d workers, sum %lld (reduce %lld, expected %lld): %s\n", size - 1,
           total, reduced, expected, bad ? "WRONG" : "correct");
    MPI_Finalize();
    return bad;
}
