/* Jacobi-2D: the steady-state heat equation on a rows x cols grid, after the example
 * application of the ZRLMPI paper (Listing 5), completed into a whole program.
 *
 *   interlace-cc jacobi2d.c -o jacobi2d && interlace run -n 4 ./jacobi2d [rows cols iters mode]
 *
 * Defaults: 256 256 100 halo. The grid is split into blocks of whole rows, one per rank
 * (rows need not divide evenly). The border is fixed (top row hot, left column warm, the
 * rest cold); every inner point becomes the mean of its four neighbours each iteration.
 * Two ways to get the neighbour rows ("halos"), both with MPI_Send/MPI_Recv:
 *   halo  every rank keeps its block and swaps its edge rows with the ranks above and
 *         below (the usual decomposition);
 *   root  Listing 5's structure: rank 0 owns the whole grid, scatters the blocks every
 *         iteration, sends each rank the two rows around its block, and gathers the
 *         new blocks back.
 * Every point is computed by the same expression whatever the decomposition, so the
 * checksum (rank 0 adds the final grid in row order) is bit-identical for any number of
 * ranks and either mode; the residual is the largest change in the last iteration. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int rows, cols, iters, root_mode;
    int rank, size;
    int first, count; /* this rank's block: global rows [first, first + count) */
    int *counts, *displs; /* per rank, in doubles, for Scatterv / Gatherv */
} Setup;

static double boundary(int i, int j, int rows, int cols) {
    if (i == 0)
        return 100.0;
    if (j == 0)
        return 50.0 * (double)(rows - i) / rows;
    (void)cols;
    return 0.0;
}

static void split(Setup *s) {
    s->counts = malloc(sizeof(int) * (size_t)s->size);
    s->displs = malloc(sizeof(int) * (size_t)s->size);
    int base = s->rows / s->size, extra = s->rows % s->size, row = 0;
    for (int r = 0; r < s->size; r++) {
        int n = base + (r < extra);
        if (r == s->rank) {
            s->first = row;
            s->count = n;
        }
        s->counts[r] = n * s->cols;
        s->displs[r] = row * s->cols;
        row += n;
    }
}

/* One sweep over the owned rows 1..count of old (row 0 and count+1 are the halos).
 * Returns the largest change. */
static double sweep(const Setup *s, const double *old, double *new_) {
    int c = s->cols;
    double change = 0.0;
    for (int i = 1; i <= s->count; i++) {
        int g = s->first + i - 1;
        for (int j = 0; j < c; j++) {
            const double *p = old + (size_t)i * c + j;
            double v = *p;
            if (g != 0 && g != s->rows - 1 && j != 0 && j != c - 1)
                v = 0.25 * (p[-1] + p[1] + p[-c] + p[c]);
            double d = fabs(v - *p);
            if (d > change)
                change = d;
            new_[(size_t)i * c + j] = v;
        }
    }
    return change;
}

/* halo mode: swap edge rows with the neighbours. Even ranks talk downwards first and odd
 * ranks upwards first, so blocking sends pair up whatever the library buffers. */
static void exchange_neighbours(const Setup *s, double *local) {
    int c = s->cols, up = s->rank - 1, down = s->rank + 1;
    double *top_halo = local, *top_row = local + c;
    double *bottom_row = local + (size_t)s->count * c, *bottom_halo = bottom_row + c;
    int has_up = up >= 0, has_down = down < s->size;
    for (int phase = 0; phase < 2; phase++) {
        int downwards = (phase == 0) == (s->rank % 2 == 0);
        if (downwards && has_down) {
            if (s->rank % 2 == 0) {
                MPI_Send(bottom_row, c, MPI_DOUBLE, down, 0, MPI_COMM_WORLD);
                MPI_Recv(bottom_halo, c, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(bottom_halo, c, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(bottom_row, c, MPI_DOUBLE, down, 0, MPI_COMM_WORLD);
            }
        } else if (!downwards && has_up) {
            if (s->rank % 2 == 0) {
                MPI_Send(top_row, c, MPI_DOUBLE, up, 1, MPI_COMM_WORLD);
                MPI_Recv(top_halo, c, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(top_halo, c, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(top_row, c, MPI_DOUBLE, up, 1, MPI_COMM_WORLD);
            }
        }
    }
}

/* root mode (Listing 5): rank 0 sends every other rank the rows just outside its block. */
static void halos_from_root(const Setup *s, const double *grid, double *local) {
    int c = s->cols;
    if (s->rank == 0) {
        for (int r = 1; r < s->size; r++) {
            int first = s->displs[r] / c, last = first + s->counts[r] / c - 1;
            MPI_Send(grid + (size_t)(first - 1) * c, c, MPI_DOUBLE, r, 0, MPI_COMM_WORLD);
            if (last + 1 < s->rows)
                MPI_Send(grid + (size_t)(last + 1) * c, c, MPI_DOUBLE, r, 0, MPI_COMM_WORLD);
        }
        if (s->count < s->rows) /* rank 0's own lower halo */
            memcpy(local + (size_t)(s->count + 1) * c, grid + (size_t)s->count * c,
                   sizeof(double) * (size_t)c);
    } else {
        MPI_Recv(local, c, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (s->first + s->count < s->rows)
            MPI_Recv(local + (size_t)(s->count + 1) * c, c, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv) {
    Setup s = {256, 256, 100, 0, 0, 0, 0, 0, NULL, NULL};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    if (argc > 1) s.rows = atoi(argv[1]);
    if (argc > 2) s.cols = atoi(argv[2]);
    if (argc > 3) s.iters = atoi(argv[3]);
    if (argc > 4) s.root_mode = strcmp(argv[4], "root") == 0;
    if (s.rows < s.size || s.rows < 3 || s.cols < 3 || s.iters < 0) {
        if (s.rank == 0)
            fprintf(stderr, "jacobi2d: need rows >= max(3, ranks), cols >= 3, iters >= 0\n");
        MPI_Finalize();
        return 2;
    }
    split(&s);
    int c = s.cols;
    size_t local_n = (size_t)(s.count + 2) * c;
    double *local = calloc(local_n, sizeof(double)), *next = calloc(local_n, sizeof(double));
    double *grid = NULL;
    if (s.rank == 0) {
        grid = malloc(sizeof(double) * (size_t)s.rows * c);
        for (int i = 0; i < s.rows; i++)
            for (int j = 0; j < c; j++)
                grid[(size_t)i * c + j] = boundary(i, j, s.rows, c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), change = 0.0;
    if (!s.root_mode)
        MPI_Scatterv(grid, s.counts, s.displs, MPI_DOUBLE, local + c, s.count * c, MPI_DOUBLE, 0,
                     MPI_COMM_WORLD);
    for (int it = 0; it < s.iters; it++) {
        if (s.root_mode) {
            MPI_Scatterv(grid, s.counts, s.displs, MPI_DOUBLE, local + c, s.count * c,
                         MPI_DOUBLE, 0, MPI_COMM_WORLD);
            halos_from_root(&s, grid, local);
        } else {
            exchange_neighbours(&s, local);
        }
        change = sweep(&s, local, next);
        if (s.root_mode) {
            MPI_Gatherv(next + c, s.count * c, MPI_DOUBLE, grid, s.counts, s.displs, MPI_DOUBLE,
                        0, MPI_COMM_WORLD);
        } else {
            double *t = local;
            local = next;
            next = t;
        }
    }
    if (!s.root_mode)
        MPI_Gatherv(local + c, s.count * c, MPI_DOUBLE, grid, s.counts, s.displs, MPI_DOUBLE, 0,
                    MPI_COMM_WORLD);
    double residual = 0.0;
    MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - t0;

    if (s.rank == 0) {
        double sum = 0.0;
        for (size_t k = 0; k < (size_t)s.rows * c; k++)
            sum += grid[k];
        int pi = s.rows / 16 + 1, pj = c / 16 + 1; /* a point the heat reaches early */
        printf("jacobi2d %dx%d, %d iterations: checksum %.12e residual %.6e u(%d,%d) %.12e\n",
               s.rows, c, s.iters, sum, residual, pi, pj, grid[(size_t)pi * c + pj]);
        printf("# %d ranks, %s mode, %.3f s, %.3f ms per iteration\n", s.size,
               s.root_mode ? "root" : "halo", elapsed, s.iters ? elapsed * 1e3 / s.iters : 0.0);
    }
    free(grid);
    free(local);
    free(next);
    free(s.counts);
    free(s.displs);
    MPI_Finalize();
    return 0;
}
