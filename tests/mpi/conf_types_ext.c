/* ranks: 1 2 4 */
/* Datatype envelope/contents of every constructor, subarray, darray, hindexed_block,
 * MPI_Get_elements on types that mix basic types, external32 packing and attributes
 * cached on datatypes. Every rank checks its own results; rank 0 prints the verdict. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAIL (rank %d): %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* MPI_Type_get_contents with exactly the envelope's sizes (Open MPI 4.1.4 writes
 * max_* entries, so larger maxima would overrun the arrays). */
static void contents(MPI_Datatype t, int *ints, MPI_Aint *addrs, MPI_Datatype *types) {
  int i, a, d, c;
  MPI_Type_get_envelope(t, &i, &a, &d, &c);
  MPI_Type_get_contents(t, i, a, d, ints, addrs, types);
}

static void envelope(MPI_Datatype t, int ni, int na, int nd, int combiner, const char *what) {
  int i, a, d, c;
  MPI_Type_get_envelope(t, &i, &a, &d, &c);
  check(i == ni && a == na && d == nd && c == combiner, what);
}

/* Packs count elements of t from buf and compares the ints with want[0..n). */
static void packs_to(const void *buf, int count, MPI_Datatype t, const int *want, int n, const char *what) {
  int out[256], pos = 0, size;
  MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
  check(size == n * (int)sizeof(int), what);
  MPI_Pack(buf, count, t, out, sizeof out, &pos, MPI_COMM_WORLD);
  check(pos == n * (int)sizeof(int), what);
  for (int k = 0; k < n; ++k) check(out[k] == want[k], what);
}

static void test_envelopes(void) {
  int ints[16];
  MPI_Aint addrs[8];
  MPI_Datatype types[4], t, inner;
  envelope(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED, "MPI_INT is named");

  MPI_Type_contiguous(3, MPI_INT, &inner);
  MPI_Type_vector(2, 1, 4, inner, &t);
  MPI_Type_free(&inner); /* the vector's contents must outlive the handle */
  envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR, "vector envelope");
  contents(t, ints, addrs, types);
  check(ints[0] == 2 && ints[1] == 1 && ints[2] == 4, "vector contents");
  envelope(types[0], 1, 0, 1, MPI_COMBINER_CONTIGUOUS, "the vector's oldtype is a contiguous");
  contents(types[0], ints, addrs, types + 1);
  check(ints[0] == 3 && types[1] == MPI_INT, "contiguous contents");
  MPI_Type_free(&types[0]);
  MPI_Type_free(&t);

  MPI_Type_create_hvector(2, 3, 40, MPI_DOUBLE, &t);
  envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR, "hvector envelope");
  contents(t, ints, addrs, types);
  check(ints[0] == 2 && ints[1] == 3 && addrs[0] == 40 && types[0] == MPI_DOUBLE, "hvector contents");
  MPI_Type_free(&t);

  int bl[3] = {1, 2, 3}, dis[3] = {0, 5, 9};
  MPI_Type_indexed(3, bl, dis, MPI_SHORT, &t);
  envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED, "indexed envelope");
  contents(t, ints, addrs, types);
  check(ints[0] == 3 && ints[3] == 3 && ints[6] == 9 && types[0] == MPI_SHORT, "indexed contents");
  MPI_Type_free(&t);

  MPI_Aint hd[3] = {0, 16, 48};
  MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &t);
  envelope(t, 4, 3, 1, MPI_COMBINER_HINDEXED, "hindexed envelope");
  contents(t, ints, addrs, types);
  check(ints[0] == 3 && ints[2] == 2 && addrs[2] == 48, "hindexed contents");
  MPI_Type_free(&t);

  MPI_Type_create_indexed_block(3, 2, dis, MPI_INT, &t);
  envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK, "indexed_block envelope");
  MPI_Type_free(&t);

  MPI_Type_create_hindexed_block(3, 2, hd, MPI_INT, &t);
  envelope(t, 2, 3, 1, MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block envelope");
  contents(t, ints, addrs, types);
  check(ints[0] == 3 && ints[1] == 2 && addrs[1] == 16 && types[0] == MPI_INT, "hindexed_block contents");
  MPI_Type_free(&t);

  int sbl[2] = {1, 2};
  MPI_Aint sd[2] = {0, 8};
  MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, sbl, sd, st, &t);
  envelope(t, 3, 2, 2, MPI_COMBINER_STRUCT, "struct envelope");
  contents(t, ints, addrs, types);
  check(ints[2] == 2 && addrs[1] == 8 && types[0] == MPI_INT && types[1] == MPI_DOUBLE, "struct contents");
  MPI_Datatype r, d;
  MPI_Type_create_resized(t, -4, 64, &r);
  envelope(r, 0, 2, 1, MPI_COMBINER_RESIZED, "resized envelope");
  contents(r, ints, addrs, types);
  check(addrs[0] == -4 && addrs[1] == 64, "resized contents");
  envelope(types[0], 3, 2, 2, MPI_COMBINER_STRUCT, "the resized oldtype is the struct");
  MPI_Type_free(&types[0]);
  MPI_Type_dup(r, &d);
  envelope(d, 0, 0, 1, MPI_COMBINER_DUP, "dup envelope");
  MPI_Type_free(&d);
  MPI_Type_free(&r);
  MPI_Type_free(&t);
}

static void test_subarray(void) {
  int a[4][5], want[6], k = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) a[i][j] = 10 * i + j;
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 1};
  MPI_Datatype t;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
  MPI_Type_commit(&t);
  for (int i = 1; i < 3; ++i)
    for (int j = 1; j < 4; ++j) want[k++] = a[i][j];
  packs_to(a, 1, t, want, 6, "C-order subarray packs rows 1-2, columns 1-3");
  MPI_Aint lb, ext;
  MPI_Type_get_extent(t, &lb, &ext);
  check(lb == 0 && ext == (MPI_Aint)sizeof a, "a subarray spans the whole array");
  envelope(t, 8, 0, 1, MPI_COMBINER_SUBARRAY, "subarray envelope");
  int ints[8];
  MPI_Aint ad[1];
  MPI_Datatype ty[1];
  contents(t, ints, ad, ty);
  check(ints[0] == 2 && ints[1] == 4 && ints[4] == 3 && ints[6] == 1 && ints[7] == MPI_ORDER_C,
        "subarray contents");
  MPI_Type_free(&t);

  /* Fortran order: dimension 0 is fastest; the same memory seen as a 5x4 array. */
  int fsizes[2] = {5, 4}, fsub[2] = {3, 2}, fstarts[2] = {1, 1};
  MPI_Type_create_subarray(2, fsizes, fsub, fstarts, MPI_ORDER_FORTRAN, MPI_INT, &t);
  MPI_Type_commit(&t);
  packs_to(a, 1, t, want, 6, "Fortran-order subarray of the transposed shape packs the same");
  MPI_Type_free(&t);
}

/* Whether process coordinate c of p owns global index i of n (block or cyclic, darg b). */
static int owns(int dist, int b, int n, int p, int c, int i) {
  if (dist == MPI_DISTRIBUTE_BLOCK) {
    if (b == MPI_DISTRIBUTE_DFLT_DARG) b = (n + p - 1) / p;
    return i / b == c;
  }
  if (b == MPI_DISTRIBUTE_DFLT_DARG) b = 1;
  return (i / b) % p == c;
}

static void test_darray(void) {
  enum { R = 7, C = 6 };
  int a[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) a[i][j] = 100 * i + j;
  int gs[2] = {R, C}, ps[2] = {2, 2};
  int cases[3][4] = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG},
                     {MPI_DISTRIBUTE_CYCLIC, 2, MPI_DISTRIBUTE_BLOCK, 4},
                     {MPI_DISTRIBUTE_CYCLIC, 3, MPI_DISTRIBUTE_CYCLIC, 2}};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 4; ++r) { /* every process's piece, computed locally */
      int dist[2] = {cases[c][0], cases[c][2]}, darg[2] = {cases[c][1], cases[c][3]};
      MPI_Datatype t;
      MPI_Type_create_darray(4, r, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
      MPI_Type_commit(&t);
      int want[R * C], n = 0;
      for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
          if (owns(dist[0], darg[0], R, 2, r / 2, i) && owns(dist[1], darg[1], C, 2, r % 2, j))
            want[n++] = a[i][j];
      char what[96];
      snprintf(what, sizeof what, "darray case %d, process %d packs its elements in order", c, r);
      packs_to(a, 1, t, want, n, what);
      MPI_Aint lb, ext;
      MPI_Type_get_extent(t, &lb, &ext);
      check(lb == 0 && ext == (MPI_Aint)sizeof a, "a darray spans the whole array");
      envelope(t, 4 * 2 + 4, 0, 1, MPI_COMBINER_DARRAY, "darray envelope");
      MPI_Type_free(&t);

      /* The same memory as a Fortran C x R array: dimension 0 (columns) is fastest, while
       * the process grid stays row-major (process r has coordinates r / 2, r % 2). */
      int fgs[2] = {C, R};
      MPI_Type_create_darray(4, r, 2, fgs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
      MPI_Type_commit(&t);
      n = 0;
      for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
          if (owns(dist[0], darg[0], C, 2, r / 2, j) && owns(dist[1], darg[1], R, 2, r % 2, i))
            want[n++] = a[i][j];
      snprintf(what, sizeof what, "Fortran-order darray case %d, process %d", c, r);
      packs_to(a, 1, t, want, n, what);
      MPI_Type_free(&t);
    }
}

static void test_hindexed_block(void) {
  int a[12], want[6] = {1, 2, 6, 7, 9, 10};
  for (int i = 0; i < 12; ++i) a[i] = i;
  MPI_Aint d[3] = {4, 24, 36};
  MPI_Datatype t;
  MPI_Type_create_hindexed_block(3, 2, d, MPI_INT, &t);
  MPI_Type_commit(&t);
  packs_to(a, 1, t, want, 6, "hindexed_block packs blocks of 2 at byte displacements");
  MPI_Type_free(&t);
}

/* A receive of 1 element and a part of a second of {int; double[2]} counts its basic
 * elements: MPI_Get_elements on a type mixing basic types (issue 13, item 4). */
static void test_get_elements_mixed(void) {
  struct { int i; double d[2]; } in[2], out[2];
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {0, (MPI_Aint)((char *)&in[0].d - (char *)&in[0])};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t, prefix;
  MPI_Type_create_struct(2, bl, disp, types, &t);
  MPI_Type_commit(&t);
  /* The sender's signature (int, double, double, int, double) is a prefix of 2 t's. */
  int pbl2[4] = {1, 2, 1, 1};
  MPI_Aint pd[4] = {disp[0], disp[1], (MPI_Aint)sizeof in[0], (MPI_Aint)sizeof in[0] + disp[1]};
  MPI_Datatype pt[4] = {MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(4, pbl2, pd, pt, &prefix);
  MPI_Type_commit(&prefix);
  in[0].i = 1; in[0].d[0] = 2; in[0].d[1] = 3; in[1].i = 4; in[1].d[0] = 5; in[1].d[1] = 6;
  MPI_Status st;
  MPI_Sendrecv(in, 1, prefix, 0, 7, out, 2, t, 0, 7, MPI_COMM_SELF, &st);
  int n, cnt;
  MPI_Get_elements(&st, t, &n);
  check(n == 5, "MPI_Get_elements counts 3 + 2 basic elements of a mixed struct");
  MPI_Get_count(&st, t, &cnt);
  check(cnt == MPI_UNDEFINED, "MPI_Get_count of a partial element is MPI_UNDEFINED");
  MPI_Count nx;
  MPI_Get_elements_x(&st, t, &nx);
  check(nx == 5, "MPI_Get_elements_x agrees");
  check(out[1].i == 4 && out[1].d[0] == 5, "the partial element arrived");
  MPI_Sendrecv(in, 2, t, 0, 8, out, 2, t, 0, 8, MPI_COMM_SELF, &st);
  MPI_Get_elements(&st, t, &n);
  check(n == 6, "two whole elements hold 6 basic elements");
  MPI_Type_free(&prefix);
  MPI_Type_free(&t);
}

static void test_external32(void) {
  struct { int i; short s; double d; } v = {0x01020304, -2, 1.0}, back;
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {0, (MPI_Aint)((char *)&v.s - (char *)&v), (MPI_Aint)((char *)&v.d - (char *)&v)};
  MPI_Datatype types[3] = {MPI_INT, MPI_SHORT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(3, bl, disp, types, &t);
  MPI_Type_commit(&t);
  MPI_Aint size, pos = 0;
  MPI_Pack_external_size("external32", 1, t, &size);
  check(size == 14, "external32 size of {int, short, double} is 4 + 2 + 8");
  unsigned char buf[32];
  MPI_Pack_external("external32", &v, 1, t, buf, sizeof buf, &pos);
  check(pos == 14, "MPI_Pack_external advances the position by the external size");
  const unsigned char want[14] = {1, 2, 3, 4, 0xff, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
  check(memcmp(buf, want, 14) == 0, "external32 is big-endian IEEE");
  pos = 0;
  memset(&back, 0, sizeof back);
  MPI_Unpack_external("external32", buf, sizeof buf, &pos, &back, 1, t);
  check(pos == 14 && back.i == v.i && back.s == v.s && back.d == v.d, "MPI_Unpack_external restores the values");
  MPI_Type_free(&t);
}

static int copies, deletes;
static int copy_fn(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag) {
  (void)old; (void)key; (void)extra;
  ++copies;
  *(void **)out = (char *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_fn(MPI_Datatype t, int key, void *val, void *extra) {
  (void)t; (void)key; (void)val; (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static void test_attributes(void) {
  static char base[4];
  int key, key2, flag;
  void *val;
  MPI_Datatype t, d;
  MPI_Type_create_keyval(copy_fn, delete_fn, &key, NULL);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &key2, NULL);
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_attr(t, key, base);
  MPI_Type_set_attr(t, key2, base);
  MPI_Type_get_attr(t, key, &val, &flag);
  check(flag && val == base, "MPI_Type_get_attr returns the value set");
  MPI_Type_dup(t, &d);
  check(copies == 1, "MPI_Type_dup runs the copy callback");
  MPI_Type_get_attr(d, key, &val, &flag);
  check(flag && val == base + 1, "the duplicate has the copied value");
  MPI_Type_get_attr(d, key2, &val, &flag);
  check(!flag, "MPI_TYPE_NULL_COPY_FN does not copy");
  MPI_Type_delete_attr(t, key);
  check(deletes == 1, "MPI_Type_delete_attr runs the delete callback");
  MPI_Type_get_attr(t, key, &val, &flag);
  check(!flag, "a deleted attribute is gone");
  MPI_Type_free(&d);
  check(deletes == 2, "MPI_Type_free deletes the attributes");
  MPI_Type_set_attr(MPI_INT, key, base); /* predefined types cache attributes too */
  MPI_Type_get_attr(MPI_INT, key, &val, &flag);
  check(flag && val == base, "an attribute on MPI_INT");
  MPI_Type_delete_attr(MPI_INT, key);
  MPI_Type_free(&t);
  MPI_Type_free_keyval(&key);
  MPI_Type_free_keyval(&key2);
  check(key == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval resets the keyval");
}

#ifdef INTERLACE_MPI
/* Bad arguments give an error of the right class whose message names the value
 * (interlace's messages; other libraries word theirs differently). */
static void fails(int rc, int cls, const char *needle, const char *what) {
  int c, len;
  char msg[MPI_MAX_ERROR_STRING];
  MPI_Error_class(rc, &c);
  MPI_Error_string(rc, msg, &len);
  if (c != cls || !strstr(msg, needle)) fprintf(stderr, "got class %d, message: %s\n", c, msg);
  check(c == cls && strstr(msg, needle) != NULL, what);
}

static void test_errors(void) {
  MPI_Datatype t;
  MPI_Aint size, pos = 0;
  int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {3, 0}, ps[2] = {2, 3}, gs[2] = {4, 6};
  int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  fails(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG, "start 3",
        "a subarray past the array's end");
  starts[0] = 0;
  fails(MPI_Type_create_subarray(2, sizes, sub, starts, 99, MPI_INT, &t), MPI_ERR_ARG, "order 99", "a bad order");
  fails(MPI_Type_create_darray(4, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG, "6",
        "psizes whose product is not size");
  ps[1] = 2;
  fails(MPI_Type_create_darray(4, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
        "block size 1", "a block darg too small to cover the array");
  fails(MPI_Pack_external("native", &pos, 1, MPI_INT, &size, sizeof size, &pos), MPI_ERR_UNSUPPORTED_DATAREP,
        "native", "a datarep other than external32");
  int ints[1];
  fails(MPI_Type_get_contents(MPI_INT, 0, 0, 0, ints, NULL, NULL), MPI_ERR_TYPE, "MPI_INT",
        "contents of a named type");
  fails(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG, "size 3", "no real type of size 3");
  fails(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t), MPI_ERR_ARG, "precision 40", "precision 40");
  fails(MPI_Type_free(&(MPI_Datatype){MPI_INTEGER}), MPI_ERR_TYPE, "MPI_INTEGER", "freeing MPI_INTEGER");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* external32 sizes that differ from this platform's: MPI_LONG is 4 bytes, MPI_LONG_DOUBLE
 * 16 (IEEE binary128). Open MPI keeps the native sizes here, hence interlace only. */
static void test_external32_sizes(void) {
  long l = -2, lback = 0;
  long double x = 1.5L, xback = 0;
  unsigned char buf[16];
  MPI_Aint size, pos = 0;
  MPI_Pack_external_size("external32", 1, MPI_LONG, &size);
  check(size == 4, "MPI_LONG is 4 bytes in external32");
  MPI_Pack_external("external32", &l, 1, MPI_LONG, buf, sizeof buf, &pos);
  check(pos == 4 && buf[0] == 0xff && buf[3] == 0xfe, "MPI_LONG -2 is ff ff ff fe");
  pos = 0;
  MPI_Unpack_external("external32", buf, sizeof buf, &pos, &lback, 1, MPI_LONG);
  check(lback == -2, "MPI_LONG -2 comes back sign-extended");
  pos = 0;
  MPI_Pack_external("external32", &x, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
  check(pos == 16 && buf[0] == 0x3f && buf[1] == 0xff && buf[2] == 0x80 && buf[15] == 0,
        "long double 1.5 is binary128 3fff8000...");
  pos = 0;
  MPI_Unpack_external("external32", buf, sizeof buf, &pos, &xback, 1, MPI_LONG_DOUBLE);
  check(xback == 1.5L, "long double comes back");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  l = 1L << 40;
  pos = 0;
  fails(MPI_Pack_external("external32", &l, 1, MPI_LONG, buf, sizeof buf, &pos), MPI_ERR_CONVERSION,
        "1099511627776", "a long beyond 32 bits");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  test_envelopes();
  test_subarray();
  test_darray();
  test_hindexed_block();
  test_get_elements_mixed();
  test_external32();
  test_attributes();
#ifdef INTERLACE_MPI
  test_errors();
  test_external32_sizes();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_types_ext\n");
  MPI_Finalize();
  return 0;
}
