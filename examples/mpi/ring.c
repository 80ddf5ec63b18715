/* A message passed around a ring of ranks, laps times.
 *
 * Rank 0 starts a message of len ints; every rank receives it from its left neighbour,
 * adds (its rank + 1) to every element and passes it to its right neighbour. After
 * `laps` laps rank 0 holds element k = k + laps * size*(size+1)/2 and checks it.
 *
 *   interlace-cc ring.c -o ring && interlace run -n 4 ./ring [laps] [len]
 *
 * Rank 0 sends with MPI_Isend so that a ring of one rank (sending to itself) works
 * without relying on the library buffering a blocking send. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int laps = argc > 1 ? atoi(argv[1]) : 10;
    int len = argc > 2 ? atoi(argv[2]) : 1000;
    if (laps < 1 || len < 1) {
        if (rank == 0)
            fprintf(stderr, "ring: laps and len must be positive\n");
        MPI_Finalize();
        return 2;
    }
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    long long *msg = malloc(sizeof(long long) * (size_t)len);
    long long *out = malloc(sizeof(long long) * (size_t)len);
    for (int k = 0; k < len; k++)
        msg[k] = k;

    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            MPI_Request req;
            for (int k = 0; k < len; k++)
                out[k] = msg[k] + 1;
            MPI_Isend(out, len, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD, &req);
            MPI_Recv(msg, len, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(msg, len, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < len; k++)
                msg[k] += rank + 1;
            MPI_Send(msg, len, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD);
        }
    }

    int bad = 0;
    if (rank == 0) {
        long long per_lap = (long long)size * (size + 1) / 2;
        for (int k = 0; k < len; k++)
            if (msg[k] != k + laps * per_lap) {
                fprintf(stderr, "ring: element %d is %lld, expected %lld\n", k, msg[k],
                        k + laps * per_lap);
                bad = 1;
                break;
            }
        printf("ring of %d ranks, %d laps, %d ints: element 0 = %lld, last = %lld: %s\n", size,
               laps, len, msg[0], msg[len - 1], bad ? "WRONG" : "correct");
    }
    /* Every rank learns the verdict so that the exit status is the same everywhere. */
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(msg);
    free(out);
    MPI_Finalize();
    return bad;
}
