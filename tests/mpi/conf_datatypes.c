/* ranks: 1 2 3 4 8 */
/* Derived datatypes: every constructor's size, lb/extent and true extent against
 * hand-computed values; sends of vector, indexed and struct types around a ring;
 * MPI_Pack/MPI_Unpack round trips; addresses; bad arguments under MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int rank, nranks;

#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                            \
      fprintf(stderr, "\n");                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                            \
    }                                                          \
  } while (0)

static void expect_shape(MPI_Datatype t, const char* what, int size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent) {
  int s;
  MPI_Aint l, e, tl, te;
  MPI_Count sx;
  MPI_Type_size(t, &s);
  MPI_Type_size_x(t, &sx);
  MPI_Type_get_extent(t, &l, &e);
  MPI_Type_get_true_extent(t, &tl, &te);
  CHECK(s == size && sx == size, "%s: size %d (size_x %lld), expected %d", what, s, (long long)sx, size);
  CHECK(l == lb && e == extent, "%s: lb %ld extent %ld, expected %ld %ld", what, (long)l, (long)e,
        (long)lb, (long)extent);
  CHECK(tl == true_lb && te == true_extent, "%s: true lb %ld extent %ld, expected %ld %ld", what,
        (long)tl, (long)te, (long)true_lb, (long)true_extent);
}

struct particle {
  int id;
  double pos[3];
  char tag[3];
};

static void constructors(void) {
  MPI_Datatype t, u, v;
  MPI_Type_contiguous(3, MPI_INT, &t);
  expect_shape(t, "contiguous(3,INT)", 12, 0, 12, 0, 12);
  MPI_Type_free(&t);
  CHECK(t == MPI_DATATYPE_NULL, "Type_free did not reset the handle");

  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
  expect_shape(t, "vector(3,2,4,DOUBLE)", 48, 0, 80, 0, 80);
  MPI_Type_dup(t, &u);
  expect_shape(u, "dup(vector)", 48, 0, 80, 0, 80);
  MPI_Type_free(&u);
  MPI_Type_free(&t);

  MPI_Type_create_hvector(2, 3, 20, MPI_INT, &t);
  expect_shape(t, "hvector(2,3,20,INT)", 24, 0, 32, 0, 32);
  MPI_Type_free(&t);

  int bl[3] = {2, 1, 3}, di[3] = {4, 0, 8};
  MPI_Type_indexed(3, bl, di, MPI_INT, &t);
  expect_shape(t, "indexed({2,1,3},{4,0,8},INT)", 24, 0, 44, 0, 44);
  MPI_Type_free(&t);

  int bl2[2] = {1, 2}, di2[2] = {3, 6};
  MPI_Type_indexed(2, bl2, di2, MPI_INT, &t);
  expect_shape(t, "indexed({1,2},{3,6},INT)", 12, 12, 20, 12, 20);
  MPI_Type_free(&t);

  int hbl[2] = {2, 1};
  MPI_Aint hdi[2] = {8, 40};
  MPI_Type_create_hindexed(2, hbl, hdi, MPI_SHORT, &t);
  expect_shape(t, "hindexed({2,1},{8,40},SHORT)", 6, 8, 34, 8, 34);
  MPI_Type_free(&t);

  int bdi[3] = {0, 5, 10};
  MPI_Type_create_indexed_block(3, 2, bdi, MPI_FLOAT, &t);
  expect_shape(t, "indexed_block(3,2,{0,5,10},FLOAT)", 24, 0, 48, 0, 48);
  MPI_Type_free(&t);

  /* struct: data ends at 35, the extent rounds up to the double's alignment (40) */
  int sbl[3] = {1, 3, 3};
  MPI_Aint sdi[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                     offsetof(struct particle, tag)};
  MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, sbl, sdi, sty, &t);
  expect_shape(t, "struct particle", 31, 0, (MPI_Aint)sizeof(struct particle), 0, 35);
  MPI_Type_free(&t);

  MPI_Type_create_resized(MPI_INT, -4, 16, &t);
  expect_shape(t, "resized(INT,-4,16)", 4, -4, 16, 0, 4);
  MPI_Type_vector(2, 1, 1, t, &u); /* two ints 16 bytes apart */
  expect_shape(u, "vector(2,1,1,resized)", 8, -4, 32, 0, 20);
  MPI_Type_free(&u);
  MPI_Type_free(&t);

  /* negative stride: blocks at 0, -8, -16 bytes */
  MPI_Type_vector(3, 1, -2, MPI_INT, &t);
  expect_shape(t, "vector(3,1,-2,INT)", 12, -16, 20, -16, 20);
  MPI_Type_free(&t);
  MPI_Type_contiguous(0, MPI_INT, &t);
  expect_shape(t, "contiguous(0,INT)", 0, 0, 0, 0, 0);
  MPI_Type_free(&t);
  /* resized bounds act as lb/ub markers: they alone bound a struct, with no padding */
  MPI_Type_create_resized(MPI_INT, 0, 6, &u);
  MPI_Type_contiguous(2, u, &t);
  expect_shape(t, "contiguous(2,resized(INT,0,6))", 8, 0, 12, 0, 10);
  MPI_Type_free(&t);
  MPI_Type_free(&u);
  MPI_Type_create_resized(MPI_DOUBLE, 0, 12, &u);
  {
    int bl2s[2] = {1, 1};
    MPI_Aint d2s[2] = {0, 12};
    MPI_Datatype t2s[2] = {u, MPI_CHAR};
    MPI_Type_create_struct(2, bl2s, d2s, t2s, &t);
    expect_shape(t, "struct(resized(DOUBLE,0,12)@0, CHAR@12)", 9, 0, 12, 0, 13);
    MPI_Type_free(&t);
    MPI_Aint d2n[2] = {4, 20};
    MPI_Datatype t2n[2] = {MPI_INT, MPI_SHORT};
    MPI_Type_create_struct(2, bl2s, d2n, t2n, &t);
    expect_shape(t, "struct(INT@4, SHORT@20)", 6, 4, 20, 4, 18);
    MPI_Type_free(&t);
  }
  MPI_Type_free(&u);

  /* a type outlives the types it was built from */
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_vector(2, 1, 2, t, &v);
  MPI_Type_free(&t);
  MPI_Type_commit(&v);
  expect_shape(v, "vector(2,1,2,contiguous(2,INT))", 16, 0, 24, 0, 24);
  int src[6] = {1, 2, 3, 4, 5, 6}, packed[4] = {0}, pos = 0;
  MPI_Pack(src, 1, v, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
  CHECK(pos == 16 && packed[0] == 1 && packed[1] == 2 && packed[2] == 5 && packed[3] == 6,
        "pack of a type whose component was freed: pos %d data %d %d %d %d", pos, packed[0],
        packed[1], packed[2], packed[3]);
  MPI_Type_free(&v);

  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_get_name(MPI_INT, name, &len);
  CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "name of MPI_INT is '%s'", name);
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_name(t, "pair of ints");
  MPI_Type_get_name(t, name, &len);
  CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "type name '%s'", name);
  MPI_Type_free(&t);
}

static void addresses(void) {
  struct particle p;
  MPI_Aint base, a_pos, a_tag;
  MPI_Get_address(&p, &base);
  MPI_Get_address(&p.pos[0], &a_pos);
  MPI_Get_address(p.tag, &a_tag);
  CHECK(MPI_Aint_diff(a_pos, base) == (MPI_Aint)offsetof(struct particle, pos), "Aint_diff pos");
  CHECK(MPI_Aint_diff(a_tag, base) == (MPI_Aint)offsetof(struct particle, tag), "Aint_diff tag");
  CHECK(MPI_Aint_add(base, (MPI_Aint)offsetof(struct particle, tag)) == a_tag, "Aint_add");
}

static void pack_round_trip(void) {
  double m[4][5];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) m[i][j] = 10 * i + j;
  /* a column resized to one double, so consecutive elements are consecutive columns */
  MPI_Datatype col0, col;
  MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col0);
  MPI_Type_create_resized(col0, 0, sizeof(double), &col);
  MPI_Type_free(&col0);
  MPI_Type_commit(&col);
  expect_shape(col, "resized column", 32, 0, 8, 0, 128);
  int psize;
  MPI_Pack_size(2, col, MPI_COMM_WORLD, &psize);
  CHECK(psize >= 64, "Pack_size of 2 columns is %d", psize);
  char buf[256];
  int pos = 0, seven = 7;
  MPI_Pack(&seven, 1, MPI_INT, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD);
  MPI_Pack(&m[0][1], 2, col, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD); /* columns 1, 2 */
  CHECK(pos == 4 + 64, "position after packing int + 2 columns: %d", pos);
  double back[4][5];
  memset(back, 0, sizeof back);
  int got = 0, rpos = 0;
  MPI_Unpack(buf, pos, &rpos, &got, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Unpack(buf, pos, &rpos, &back[0][1], 2, col, MPI_COMM_WORLD);
  CHECK(got == 7 && rpos == pos, "unpacked int %d position %d", got, rpos);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      CHECK(back[i][j] == (j == 1 || j == 2 ? m[i][j] : 0), "unpacked [%d][%d] = %g", i, j,
            back[i][j]);
  /* packed order: column 1 top to bottom, then column 2 */
  double first[8];
  memcpy(first, buf + 4, sizeof first);
  for (int k = 0; k < 8; ++k)
    CHECK(first[k] == m[k % 4][1 + k / 4], "packed double %d = %g", k, first[k]);
  MPI_Type_free(&col);
}

static void ring_sends(void) {
  int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  /* a column of a 6x4 int matrix sent as a vector, received contiguous */
  int mat[6][4], colv[6];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) mat[i][j] = 1000 * rank + 10 * i + j;
  MPI_Datatype col;
  MPI_Type_vector(6, 1, 4, MPI_INT, &col);
  MPI_Type_commit(&col);
  MPI_Sendrecv(&mat[0][2], 1, col, right, 1, colv, 6, MPI_INT, left, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 6; ++i)
    CHECK(colv[i] == 1000 * left + 10 * i + 2, "vector column row %d: %d", i, colv[i]);
  /* contiguous ints received into a column */
  int flat[6], into[6][4];
  memset(into, -1, sizeof into);
  for (int i = 0; i < 6; ++i) flat[i] = 100 * rank + i;
  MPI_Sendrecv(flat, 6, MPI_INT, right, 2, &into[0][1], 1, col, left, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j)
      CHECK(into[i][j] == (j == 1 ? 100 * left + i : -1), "column receive [%d][%d] = %d", i, j,
            into[i][j]);
  MPI_Type_free(&col);

  /* indexed both ways */
  int bl[3] = {2, 1, 3}, di[3] = {4, 0, 8};
  MPI_Datatype idx;
  MPI_Type_indexed(3, bl, di, MPI_INT, &idx);
  MPI_Type_commit(&idx);
  int s[11], r[11];
  for (int i = 0; i < 11; ++i) s[i] = rank * 100 + i, r[i] = -1;
  MPI_Sendrecv(s, 1, idx, right, 3, r, 1, idx, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 11; ++i) {
    int in = i == 0 || i == 4 || i == 5 || (i >= 8 && i <= 10);
    CHECK(r[i] == (in ? left * 100 + i : -1), "indexed receive [%d] = %d", i, r[i]);
  }
  MPI_Type_free(&idx);

  /* an array of structs */
  int sbl[3] = {1, 3, 3};
  MPI_Aint sdi[3] = {offsetof(struct particle, id), offsetof(struct particle, pos),
                     offsetof(struct particle, tag)};
  MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, pt;
  MPI_Type_create_struct(3, sbl, sdi, sty, &pt);
  MPI_Type_commit(&pt);
  struct particle ps[5], pr[5];
  memset(ps, 0, sizeof ps);
  memset(pr, 0, sizeof pr);
  for (int k = 0; k < 5; ++k) {
    ps[k].id = rank * 10 + k;
    for (int d = 0; d < 3; ++d) ps[k].pos[d] = rank + 0.25 * k + d;
    memcpy(ps[k].tag, "abc", 3);
    ps[k].tag[2] = (char)('a' + k);
  }
  MPI_Status st;
  MPI_Sendrecv(ps, 5, pt, right, 4, pr, 5, pt, left, 4, MPI_COMM_WORLD, &st);
  int cnt;
  MPI_Get_count(&st, pt, &cnt);
  CHECK(cnt == 5, "Get_count of 5 structs: %d", cnt);
  for (int k = 0; k < 5; ++k) {
    CHECK(pr[k].id == left * 10 + k, "struct %d id %d", k, pr[k].id);
    for (int d = 0; d < 3; ++d)
      CHECK(pr[k].pos[d] == left + 0.25 * k + d, "struct %d pos[%d] %g", k, d, pr[k].pos[d]);
    CHECK(pr[k].tag[0] == 'a' && pr[k].tag[1] == 'b' && pr[k].tag[2] == 'a' + k, "struct %d tag", k);
  }
  MPI_Type_free(&pt);
}

static void expect_class(int rc, int cls, const char* what) {
  int c = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void bad_arguments(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Datatype t = MPI_DATATYPE_NULL, predefined = MPI_INT;
  expect_class(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, "contiguous count -1");
  expect_class(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT, "vector count -2");
  expect_class(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "vector of NULL");
  expect_class(MPI_Type_free(&predefined), MPI_ERR_TYPE, "free MPI_INT");
  expect_class(MPI_Type_size(MPI_DATATYPE_NULL, &(int){0}), MPI_ERR_TYPE, "size of NULL");
  /* an uncommitted type cannot be communicated */
  MPI_Type_contiguous(2, MPI_INT, &t);
  int v[2] = {1, 2};
  expect_class(MPI_Send(v, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "send of an uncommitted type");
  MPI_Type_free(&t);
  /* packing past outsize */
  char out[8];
  int pos = 4, four[4] = {0};
  expect_class(MPI_Pack(four, 4, MPI_INT, out, (int)sizeof out, &pos, MPI_COMM_WORLD),
               MPI_ERR_TRUNCATE, "pack 16 bytes into 4 left");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  constructors();
  addresses();
  pack_round_trip();
  ring_sends();
  bad_arguments();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_datatypes\n");
  MPI_Finalize();
  return 0;
}
