/* pi by numerical integration: the classic first MPI program.
 *
 * pi = integral over [0,1] of 4/(1+x^2) dx, by the midpoint rule with n intervals.
 * Rank 0 reads n (argv[1], default 1000000) and broadcasts it; every rank sums the
 * intervals i = rank, rank+size, ...; MPI_Reduce adds the partial sums on rank 0.
 *
 *   interlace-cc pi.c -o pi && interlace run -n 4 ./pi [n]
 *
 * The printed text does not depend on the MPI library nor on the number of ranks: pi
 * is printed to 10 decimals (the midpoint rule with n = 1e6 is exact to ~1e-13, and
 * the order in which a library adds the partial sums changes only the last bits).
 * The exact error is printed on a "#" line, which comparisons ignore. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double PI_REF = 3.141592653589793238462643;

int main(int argc, char **argv) {
    int rank, size;
    long long n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        n = argc > 1 ? atoll(argv[1]) : 1000000;
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (n <= 0) {
        if (rank == 0)
            fprintf(stderr, "pi: the number of intervals must be positive\n");
        MPI_Finalize();
        return 2;
    }

    double h = 1.0 / (double)n, part = 0.0, pi = 0.0;
    for (long long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        part += 4.0 / (1.0 + x * x);
    }
    part *= h;
    MPI_Reduce(&part, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double err = fabs(pi - PI_REF);
        printf("pi with %lld intervals is approximately %.10f\n", n, pi);
        /* The midpoint rule's error bound is (b-a) h^2 max|f''| / 24 = h^2 / 3. */
        double bound = h * h / 3.0 + 1e-12;
        printf("error within the midpoint-rule bound: %s\n", err <= bound ? "yes" : "NO");
        printf("# error %.3e (bound %.3e)\n", err, bound);
    }
    MPI_Finalize();
    return 0;
}
