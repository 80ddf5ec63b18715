/* Token collection with wildcards: rank 0 receives tokens in whatever order they come.
 *
 * Every rank r > 0 sends `per` * r tokens to rank 0 (argv[1] = per, default 3). Token j
 * of rank r has tag j and 1 + (r + j) % 5 ints, element k being r*10000 + j*10 + k.
 * Rank 0 receives them all with MPI_ANY_SOURCE / MPI_ANY_TAG into a buffer large enough
 * for any token, learns the length with MPI_Get_count, checks the contents against the
 * status's source and tag, and prints per-sender totals in rank order: the text does
 * not depend on the arrival order (which differs from run to run and between libraries).
 *
 *   interlace-cc token.c -o token && interlace run -n 4 ./token [per]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_LEN = 5 };

static int token_len(int r, int j) { return 1 + (r + j) % MAX_LEN; }
static int token_elem(int r, int j, int k) { return r * 10000 + j * 10 + k; }

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int per = argc > 1 ? atoi(argv[1]) : 3;
    if (per < 0)
        per = 0;
    int bad = 0;

    if (rank != 0) {
        int buf[MAX_LEN];
        for (int j = 0; j < per * rank; j++) {
            int len = token_len(rank, j);
            for (int k = 0; k < len; k++)
                buf[k] = token_elem(rank, j, k);
            MPI_Send(buf, len, MPI_INT, 0, j, MPI_COMM_WORLD);
        }
    } else {
        long long expected = 0;
        for (int r = 1; r < size; r++)
            expected += (long long)per * r;
        long long *count = calloc((size_t)size, sizeof(long long));
        long long *ints = calloc((size_t)size, sizeof(long long));
        long long *sum = calloc((size_t)size, sizeof(long long));
        long long *tags = calloc((size_t)size, sizeof(long long));
        for (long long t = 0; t < expected && !bad; t++) {
            int buf[MAX_LEN], n;
            MPI_Status st;
            MPI_Recv(buf, MAX_LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            int r = st.MPI_SOURCE, j = st.MPI_TAG;
            if (r < 1 || r >= size || j < 0 || j >= per * r || n != token_len(r, j)) {
                fprintf(stderr, "token: unexpected token source %d tag %d with %d ints\n", r, j,
                        n);
                bad = 1;
                break;
            }
            for (int k = 0; k < n; k++)
                if (buf[k] != token_elem(r, j, k)) {
                    fprintf(stderr, "token: source %d tag %d element %d is %d, expected %d\n",
                            r, j, k, buf[k], token_elem(r, j, k));
                    bad = 1;
                }
            count[r]++;
            ints[r] += n;
            tags[r] += j;
            for (int k = 0; k < n; k++)
                sum[r] += buf[k];
        }
        long long total = 0;
        printf("token collection on %d ranks, %d tokens per rank step\n", size, per);
        for (int r = 1; r < size; r++) {
            if (count[r] != (long long)per * r)
                bad = 1;
            total += sum[r];
            printf("from rank %d: %lld tokens, %lld ints, tag sum %lld, value sum %lld\n", r,
                   count[r], ints[r], tags[r], sum[r]);
        }
        printf("total value %lld: %s\n", total, bad ? "WRONG" : "correct");
        free(count);
        free(ints);
        free(sum);
        free(tags);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad;
}
