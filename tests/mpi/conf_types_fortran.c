/* ranks: 1 2 3 4 */
/* The Fortran and C++ datatype handles from C (sizes, reductions on MPI_INTEGER,
 * MPI_DOUBLE_PRECISION, MPI_LOGICAL, MPI_2INTEGER), MPI_Type_match_size, the f90
 * types, the _x queries and, where the library is MPI 4, the large-count _c forms. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAIL (rank %d): %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void size_is(MPI_Datatype t, int want, const char *name) {
  int s;
  char what[96];
  MPI_Type_size(t, &s);
  snprintf(what, sizeof what, "MPI_Type_size(%s) is %d, want %d", name, s, want);
  check(s == want, what);
}

static void test_sizes(void) {
  size_is(MPI_CHARACTER, 1, "MPI_CHARACTER");
  size_is(MPI_LOGICAL, 4, "MPI_LOGICAL");
  size_is(MPI_INTEGER, 4, "MPI_INTEGER");
  size_is(MPI_REAL, 4, "MPI_REAL");
  size_is(MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION");
  size_is(MPI_COMPLEX, 8, "MPI_COMPLEX");
  size_is(MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX");
  size_is(MPI_2INTEGER, 8, "MPI_2INTEGER");
  size_is(MPI_2REAL, 8, "MPI_2REAL");
  size_is(MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION");
  size_is(MPI_INTEGER1, 1, "MPI_INTEGER1");
  size_is(MPI_INTEGER2, 2, "MPI_INTEGER2");
  size_is(MPI_INTEGER4, 4, "MPI_INTEGER4");
  size_is(MPI_INTEGER8, 8, "MPI_INTEGER8");
  size_is(MPI_REAL4, 4, "MPI_REAL4");
  size_is(MPI_REAL8, 8, "MPI_REAL8");
  size_is(MPI_COMPLEX8, 8, "MPI_COMPLEX8");
  size_is(MPI_COMPLEX16, 16, "MPI_COMPLEX16");
  size_is(MPI_CXX_BOOL, 1, "MPI_CXX_BOOL");
  size_is(MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX");
  size_is(MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX");
  int comb, ni, na, nd;
  MPI_Type_get_envelope(MPI_INTEGER, &ni, &na, &nd, &comb);
  check(comb == MPI_COMBINER_NAMED, "MPI_INTEGER is a named type");
}

static void test_reductions(void) {
  int in[2] = {rank + 1, 10 * (rank + 1)}, out[2];
  MPI_Allreduce(in, out, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
  check(out[0] == size * (size + 1) / 2 && out[1] == 10 * out[0], "MPI_SUM on MPI_INTEGER");
  double d = 0.5 * rank, dmax;
  MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD);
  check(dmax == 0.5 * (size - 1), "MPI_MAX on MPI_DOUBLE_PRECISION");
  int l = rank != 1, all; /* Fortran .true. is 1 with gfortran */
  MPI_Allreduce(&l, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  check(all == (size == 1), "MPI_LAND on MPI_LOGICAL");
  int pair[2] = {(rank * 7) % size, rank}, best[2];
  MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
  check(best[0] == 0 && best[1] == 0, "MPI_MINLOC on MPI_2INTEGER");
  float fp[2] = {(float)((rank + 1) % size), (float)rank}, fbest[2];
  MPI_Allreduce(fp, fbest, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
  check(fbest[0] == 0.0f && fbest[1] == (float)(size - 1), "MPI_MINLOC on MPI_2REAL");
  double dp[2] = {(double)(rank % 2), (double)rank}, dbest[2];
  MPI_Allreduce(dp, dbest, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
  check(dbest[0] == (size > 1 ? 1.0 : 0.0) && dbest[1] == (size > 1 ? 1.0 : 0.0),
        "MPI_MAXLOC on MPI_2DOUBLE_PRECISION");
  float c[2] = {1.0f, (float)rank}, csum[2];
  MPI_Allreduce(c, csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  check(csum[0] == (float)size && csum[1] == (float)(size * (size - 1) / 2), "MPI_SUM on MPI_COMPLEX");
  long long big = (long long)rank << 33, bsum;
  MPI_Allreduce(&big, &bsum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
  check(bsum == ((long long)(size * (size - 1) / 2) << 33), "MPI_SUM on MPI_INTEGER8");
  /* Point-to-point with a Fortran handle around a ring. */
  int token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INTEGER, (rank + 1) % size, 3, &got, 1, MPI_INTEGER, (rank + size - 1) % size, 3,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(got == (rank + size - 1) % size, "MPI_INTEGER around a ring");
}

static void test_match_size_and_f90(void) {
  MPI_Datatype t;
  int s, ni, na, nd, comb, ints[2];
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t);
  MPI_Type_size(t, &s);
  check(s == 8, "MPI_Type_match_size(REAL, 8) has size 8");
  MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t);
  MPI_Type_size(t, &s);
  check(s == 4, "MPI_Type_match_size(INTEGER, 4) has size 4");
  MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t);
  MPI_Type_size(t, &s);
  check(s == 16, "MPI_Type_match_size(COMPLEX, 16) has size 16");

  MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t);
  MPI_Type_size(t, &s);
  check(s == 4, "f90 real of precision 6 is 4 bytes");
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  check(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0, "f90 real envelope");
  MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL);
  check(ints[0] == 6 && ints[1] == MPI_UNDEFINED, "f90 real contents are (p, r)");
  MPI_Datatype again;
  MPI_Type_create_f90_real(6, MPI_UNDEFINED, &again);
  check(again == t, "the same (p, r) gives the same f90 type");
  double x = rank, sum;
  MPI_Type_create_f90_real(15, 300, &t);
  MPI_Type_size(t, &s);
  check(s == 8, "f90 real of precision 15, range 300 is 8 bytes");
  MPI_Allreduce(&x, &sum, 1, t, MPI_SUM, MPI_COMM_WORLD);
  check(sum == size * (size - 1) / 2.0, "MPI_SUM on an f90 real type");
  MPI_Type_create_f90_integer(9, &t);
  MPI_Type_size(t, &s);
  check(s == 4, "f90 integer of range 9 is 4 bytes");
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  check(comb == MPI_COMBINER_F90_INTEGER && ni == 1, "f90 integer envelope");
  MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t);
  MPI_Type_size(t, &s);
  check(s == 16, "f90 complex of precision 15 is 16 bytes");
}

static void test_x_queries(void) {
  MPI_Datatype t;
  MPI_Type_vector(3, 2, 5, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Count lb, ext, tlb, text, sz;
  MPI_Type_get_extent_x(t, &lb, &ext);
  MPI_Type_get_true_extent_x(t, &tlb, &text);
  MPI_Type_size_x(t, &sz);
  check(lb == 0 && ext == 12 * 4 && tlb == 0 && text == 12 * 4 && sz == 6 * 4, "the _x queries of a vector");
  MPI_Type_free(&t);
}

#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
static void test_large_count(void) {
  MPI_Datatype t;
  MPI_Count sz, lb, ext, ni, na, nl, nd, n;
  int comb;
  MPI_Type_contiguous_c(5, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  MPI_Type_size_c(t, &sz);
  MPI_Type_get_extent_c(t, &lb, &ext);
  check(sz == 40 && lb == 0 && ext == 40, "MPI_Type_contiguous_c / size_c / get_extent_c");
  MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb);
  check(comb == MPI_COMBINER_CONTIGUOUS && nd == 1 && ni + nl == 1, "MPI_Type_get_envelope_c");
  double v[5] = {1, 2, 3, 4, 5}, w[5] = {0};
  char buf[64];
  MPI_Count pos = 0;
  MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &n);
  check(n >= 40, "MPI_Pack_size_c");
  MPI_Pack_c(v, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD);
  check(pos == 40, "MPI_Pack_c advances the position");
  pos = 0;
  MPI_Unpack_c(buf, sizeof buf, &pos, w, 1, t, MPI_COMM_WORLD);
  check(pos == 40 && w[4] == 5, "MPI_Unpack_c");
  MPI_Status st;
  MPI_Sendrecv(v, 1, t, 0, 1, w, 1, t, 0, 1, MPI_COMM_SELF, &st);
  MPI_Get_count_c(&st, t, &n);
  check(n == 1, "MPI_Get_count_c");
  MPI_Get_elements_c(&st, t, &n);
  check(n == 5, "MPI_Get_elements_c");
  MPI_Pack_external_size_c("external32", 2, t, &n);
  check(n == 80, "MPI_Pack_external_size_c");
  MPI_Type_free(&t);
#ifdef INTERLACE_MPI
  /* A count beyond what interlace carries is MPI_ERR_COUNT, not a crash. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls, rc = MPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_BYTE, &t);
  MPI_Error_class(rc, &cls);
  check(cls == MPI_ERR_COUNT, "a count of 2^40 gives MPI_ERR_COUNT");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_sizes();
  test_reductions();
  test_match_size_and_f90();
  test_x_queries();
#if MPI_VERSION >= 4 || defined(INTERLACE_MPI)
  test_large_count();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_types_fortran\n");
  MPI_Finalize();
  return 0;
}
