/* ranks: 1 2 3 4 8 */
/* Reduction operators: every predefined op on every datatype class it allows, through
 * MPI_Reduce_local and MPI_Allreduce, against values computed here; MINLOC/MAXLOC with
 * ties; predefined ops on a derived type; user ops (a non-commutative 2x2 matrix
 * product, one on a non-contiguous type); invalid op/type pairs under MPI_ERRORS_RETURN. */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, nranks;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

enum { MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                             MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char* op_names[] = {"MAX", "MIN", "SUM", "PROD", "LAND",
                                 "LOR", "LXOR", "BAND", "BOR", "BXOR"};

/* Elements per call: one small count and one large enough to be split by segmented and
 * ring algorithms. */
static const int counts[2] = {5, 3001};
#define MAXN 3001

/* What rank r contributes at index i: small values in -2..4 (zeros included for the
 * logical ops), so a product over 8 ranks fits every type. */
static int val(int r, int i) { return (r * 3 + i * 5 + i / 7) % 7 - 2; }

/* For each C type: fold(op, i, upto) computed in that type, and a test running every
 * op in `which` through Reduce_local (ranks 0 and 1 folded) and Allreduce. Unsigned
 * types (and MPI_OFFSET, MPI_COUNT, which Open MPI 4.1 reduces as unsigned) add LO = 2
 * to the values: all are non-negative and sums stay clear of wrap-around, which Open
 * MPI 4.1's vectorized MPI_SUM on MPI_UNSIGNED_SHORT saturates instead. */
#define DEF_TYPE_TEST(NAME, T, INTEGRAL, LO)                                                     \
  static T fold_##NAME(int op, int i, int upto) {                                               \
    T acc = (T)(val(0, i) + LO);                                                                      \
    for (int r = 1; r < upto; ++r) {                                                            \
      T x = (T)(val(r, i) + LO);                                                                     \
      switch (op) {                                                                             \
        case MAX: acc = x > acc ? x : acc; break;                                               \
        case MIN: acc = x < acc ? x : acc; break;                                               \
        case SUM: acc = (T)(acc + x); break;                                                    \
        case PROD: acc = (T)(acc * x + 0); break;                                               \
        case LAND: acc = (T)(acc && x); break;                                                  \
        case LOR: acc = (T)(acc || x); break;                                                   \
        case LXOR: acc = (T)(!acc != !x); break;                                                \
        INTEGRAL                                                                                \
      }                                                                                         \
    }                                                                                           \
    return acc;                                                                                 \
  }                                                                                             \
  static void test_##NAME(MPI_Datatype mt, const char* tname, unsigned which) {                 \
    static T in[MAXN], io[MAXN], mine[MAXN], all[MAXN];                                         \
    for (int o = 0; o < NOPS; ++o) {                                                            \
      if (!(which & (1u << o))) continue;                                                       \
      for (int c = 0; c < 2; ++c) {                                                             \
        const int n = counts[c];                                                                \
        for (int i = 0; i < n; ++i)                                                             \
          in[i] = (T)(val(0, i) + LO), io[i] = (T)(val(1, i) + LO),                        \
              mine[i] = (T)(val(rank, i) + LO);        \
        MPI_Reduce_local(in, io, n, mt, ops[o]);                                                \
        MPI_Allreduce(mine, all, n, mt, ops[o], MPI_COMM_WORLD);                                \
        for (int i = 0; i < n; ++i) {                                                           \
          CHECK(io[i] == fold_##NAME(o, i, 2), "Reduce_local %s on %s [%d]", op_names[o], tname, \
                i);                                                                             \
          CHECK(all[i] == fold_##NAME(o, i, nranks), "Allreduce %s on %s count %d [%d]: %Lg vs %Lg",\
                op_names[o], tname, n, i, (long double)all[i], (long double)fold_##NAME(o, i, nranks));\
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
  }

#define BITWISE                  \
  case BAND: acc &= x; break;    \
  case BOR: acc |= x; break;     \
  case BXOR: acc ^= x; break;
#define NO_BITWISE default: break;

#define ALL_INT_OPS 0x3ffu
#define ARITH_OPS ((1u << MAX) | (1u << MIN) | (1u << SUM) | (1u << PROD))
#define LOGICAL_OPS ((1u << LAND) | (1u << LOR) | (1u << LXOR))

DEF_TYPE_TEST(int, int, BITWISE, 0)
DEF_TYPE_TEST(unsigned, unsigned, BITWISE, 2)
DEF_TYPE_TEST(short, short, BITWISE, 0)
DEF_TYPE_TEST(ushort, unsigned short, BITWISE, 2)
DEF_TYPE_TEST(long, long, BITWISE, 0)
DEF_TYPE_TEST(ulong, unsigned long, BITWISE, 2)
DEF_TYPE_TEST(llong, long long, BITWISE, 0)
DEF_TYPE_TEST(ullong, unsigned long long, BITWISE, 2)
DEF_TYPE_TEST(char, char, BITWISE, 0)
DEF_TYPE_TEST(schar, signed char, BITWISE, 0)
DEF_TYPE_TEST(uchar, unsigned char, BITWISE, 2)
DEF_TYPE_TEST(i8, int8_t, BITWISE, 0)
DEF_TYPE_TEST(i16, int16_t, BITWISE, 0)
DEF_TYPE_TEST(i32, int32_t, BITWISE, 0)
DEF_TYPE_TEST(i64, int64_t, BITWISE, 0)
DEF_TYPE_TEST(u8, uint8_t, BITWISE, 2)
DEF_TYPE_TEST(u16, uint16_t, BITWISE, 2)
DEF_TYPE_TEST(u32, uint32_t, BITWISE, 2)
DEF_TYPE_TEST(u64, uint64_t, BITWISE, 2)
DEF_TYPE_TEST(aint, MPI_Aint, BITWISE, 0)
DEF_TYPE_TEST(offset, MPI_Offset, BITWISE, 2)
DEF_TYPE_TEST(count, MPI_Count, BITWISE, 2)
DEF_TYPE_TEST(float, float, NO_BITWISE, 0)
DEF_TYPE_TEST(double, double, NO_BITWISE, 0)
DEF_TYPE_TEST(ldouble, long double, NO_BITWISE, 0)
DEF_TYPE_TEST(bool, bool, NO_BITWISE, 0)

static void predefined_types(void) {
  test_int(MPI_INT, "MPI_INT", ALL_INT_OPS);
  test_unsigned(MPI_UNSIGNED, "MPI_UNSIGNED", ALL_INT_OPS);
  test_short(MPI_SHORT, "MPI_SHORT", ALL_INT_OPS);
  test_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", ALL_INT_OPS);
  test_long(MPI_LONG, "MPI_LONG", ALL_INT_OPS);
  test_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", ALL_INT_OPS);
  test_llong(MPI_LONG_LONG, "MPI_LONG_LONG", ALL_INT_OPS);
  test_ullong(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", ALL_INT_OPS);
  /* MPI_CHAR is for text in the standard, but Open MPI and MPICH reduce it as a C
   * integer and programs count on it (OSU osu_get_acc_latency: MPI_SUM on MPI_CHAR). */
  test_char(MPI_CHAR, "MPI_CHAR", ALL_INT_OPS);
  test_schar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", ALL_INT_OPS);
  test_uchar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", ALL_INT_OPS);
  test_i8(MPI_INT8_T, "MPI_INT8_T", ALL_INT_OPS);
  test_i16(MPI_INT16_T, "MPI_INT16_T", ALL_INT_OPS);
  test_i32(MPI_INT32_T, "MPI_INT32_T", ALL_INT_OPS);
  test_i64(MPI_INT64_T, "MPI_INT64_T", ALL_INT_OPS);
  test_u8(MPI_UINT8_T, "MPI_UINT8_T", ALL_INT_OPS);
  test_u16(MPI_UINT16_T, "MPI_UINT16_T", ALL_INT_OPS);
  test_u32(MPI_UINT32_T, "MPI_UINT32_T", ALL_INT_OPS);
  test_u64(MPI_UINT64_T, "MPI_UINT64_T", ALL_INT_OPS);
  test_aint(MPI_AINT, "MPI_AINT", ALL_INT_OPS);
  test_offset(MPI_OFFSET, "MPI_OFFSET", ALL_INT_OPS);
  test_count(MPI_COUNT, "MPI_COUNT", ALL_INT_OPS);
  test_float(MPI_FLOAT, "MPI_FLOAT", ARITH_OPS);
  test_double(MPI_DOUBLE, "MPI_DOUBLE", ARITH_OPS);
  test_ldouble(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", ARITH_OPS);
  test_bool(MPI_C_BOOL, "MPI_C_BOOL", LOGICAL_OPS);
  /* MPI_BYTE: bitwise ops only */
  unsigned char b0[4] = {0x0f, 0xf0, 0x3c, 0xff}, b1[4] = {0x55, 0x55, 0x0f, 0x00};
  const MPI_Op bops[3] = {MPI_BAND, MPI_BOR, MPI_BXOR};
  for (int k = 0; k < 3; ++k) {
    unsigned char io[4];
    memcpy(io, b1, 4);
    MPI_Reduce_local(b0, io, 4, MPI_BYTE, bops[k]);
    for (int i = 0; i < 4; ++i) {
      unsigned char want = k == 0 ? (b0[i] & b1[i]) : k == 1 ? (b0[i] | b1[i]) : (b0[i] ^ b1[i]);
      CHECK(io[i] == want, "byte op %d [%d]: %x", k, i, io[i]);
    }
    unsigned char mine = (unsigned char)(1u << (rank % 8)), all = 0, want = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_BYTE, bops[k], MPI_COMM_WORLD);
    for (int r = 0; r < nranks; ++r) {
      unsigned char x = (unsigned char)(1u << (r % 8));
      want = r == 0 ? x : k == 0 ? (want & x) : k == 1 ? (want | x) : (want ^ x);
    }
    CHECK(all == want, "Allreduce byte op %d: %x, expected %x", k, all, want);
  }
}

/* SUM and PROD on each complex type: Gaussian integers of modulus <= sqrt(5), so
 * every partial product is exact in any order. */
#define DEF_COMPLEX_TEST(NAME, T)                                                             \
  static T cval_##NAME(int r, int k) { return (T)((1 + r % 2) + (k % 2) * I); }              \
  static void test_##NAME(MPI_Datatype mt, const char* tname) {                               \
    enum { K = 4 };                                                                           \
    for (int o = 0; o < 2; ++o) {                                                             \
      MPI_Op op = o ? MPI_PROD : MPI_SUM;                                                     \
      T in[K], io[K], mine[K], all[K];                                                        \
      for (int k = 0; k < K; ++k)                                                             \
        in[k] = cval_##NAME(0, k), io[k] = cval_##NAME(1, k), mine[k] = cval_##NAME(rank, k); \
      MPI_Reduce_local(in, io, K, mt, op);                                                    \
      MPI_Allreduce(mine, all, K, mt, op, MPI_COMM_WORLD);                                    \
      for (int k = 0; k < K; ++k) {                                                           \
        T w2 = o ? in[k] * cval_##NAME(1, k) : in[k] + cval_##NAME(1, k), wn = cval_##NAME(0, k); \
        for (int r = 1; r < nranks; ++r) wn = o ? wn * cval_##NAME(r, k) : wn + cval_##NAME(r, k); \
        CHECK(io[k] == w2, "Reduce_local %s on %s [%d]", o ? "PROD" : "SUM", tname, k);       \
        CHECK(all[k] == wn, "Allreduce %s on %s [%d]", o ? "PROD" : "SUM", tname, k);         \
      }                                                                                       \
    }                                                                                         \
  }
DEF_COMPLEX_TEST(fcomplex, float complex)
DEF_COMPLEX_TEST(dcomplex, double complex)
DEF_COMPLEX_TEST(ldcomplex, long double complex)

static void complex_types(void) {
  test_fcomplex(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
  test_dcomplex(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
  test_ldcomplex(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
}

/* MINLOC and MAXLOC on each pair type, local and through Allreduce, with ties between
 * ranks (the lower index must win). Counts 5 and 1001: a large buffer of pairs must
 * not be split inside a pair. */
static int pval(int r, int k) { return (r * (k + 1)) % 3; }
static int pidx(int r, int k) { return (r * 5 + k) % 11; }
#define DEF_PAIR_TEST(NAME, V)                                                                \
  struct pair_##NAME { V v; int i; };                                                         \
  static struct pair_##NAME fold_pair_##NAME(int minloc, int k, int upto) {                   \
    struct pair_##NAME acc = {(V)pval(0, k), pidx(0, k)};                                     \
    for (int r = 1; r < upto; ++r) {                                                          \
      struct pair_##NAME x = {(V)pval(r, k), pidx(r, k)};                                     \
      int better = minloc ? x.v < acc.v : x.v > acc.v;                                        \
      if (better || (x.v == acc.v && x.i < acc.i)) acc = x;                                   \
    }                                                                                         \
    return acc;                                                                               \
  }                                                                                           \
  static void test_pair_##NAME(MPI_Datatype mt, const char* tname) {                          \
    static struct pair_##NAME in[1001], io[1001], mine[1001], all[1001];                      \
    for (int m = 0; m < 2; ++m)                                                               \
      for (int c = 0; c < 2; ++c) {                                                           \
        const int n = c ? 1001 : 5;                                                           \
        for (int k = 0; k < n; ++k) {                                                         \
          in[k].v = (V)pval(0, k), in[k].i = pidx(0, k);                                      \
          io[k].v = (V)pval(1, k), io[k].i = pidx(1, k);                                      \
          mine[k].v = (V)pval(rank, k), mine[k].i = pidx(rank, k);                            \
        }                                                                                     \
        MPI_Reduce_local(in, io, n, mt, m ? MPI_MINLOC : MPI_MAXLOC);                         \
        MPI_Allreduce(mine, all, n, mt, m ? MPI_MINLOC : MPI_MAXLOC, MPI_COMM_WORLD);         \
        for (int k = 0; k < n; ++k) {                                                         \
          struct pair_##NAME w2 = fold_pair_##NAME(m, k, 2), wn = fold_pair_##NAME(m, k, nranks); \
          CHECK(io[k].v == w2.v && io[k].i == w2.i, "Reduce_local %s on %s [%d]: index %d",    \
                m ? "MINLOC" : "MAXLOC", tname, k, io[k].i);                                  \
          CHECK(all[k].v == wn.v && all[k].i == wn.i, "Allreduce %s on %s count %d [%d]: index %d vs %d", \
                m ? "MINLOC" : "MAXLOC", tname, n, k, all[k].i, wn.i);                        \
        }                                                                                     \
      }                                                                                       \
  }
DEF_PAIR_TEST(float, float)
DEF_PAIR_TEST(double, double)
DEF_PAIR_TEST(long, long)
DEF_PAIR_TEST(int, int)
DEF_PAIR_TEST(short, short)
DEF_PAIR_TEST(ldouble, long double)

static void locations(void) {
  test_pair_float(MPI_FLOAT_INT, "MPI_FLOAT_INT");
  test_pair_double(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
  test_pair_long(MPI_LONG_INT, "MPI_LONG_INT");
  test_pair_int(MPI_2INT, "MPI_2INT");
  test_pair_short(MPI_SHORT_INT, "MPI_SHORT_INT");
  test_pair_ldouble(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
  /* everyone ties: the lowest index wins */
  int two[2] = {5, 10 + rank}, res[2];
  MPI_Allreduce(two, res, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(res[0] == 5 && res[1] == 10, "2INT all tied: %d at %d", res[0], res[1]);
}

/* Predefined ops on derived types whose elements are all one predefined type: an
 * extension (as in MPICH) that MPI-3.1 5.9.1 does not require and Open MPI refuses,
 * so it is checked on interlace only. */
static void derived_types(void) {
#ifdef INTERLACE_MPI
  MPI_Datatype vec; /* 2 doubles, skipping one: elements at 0 and 2 */
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  double in[9], io[9];
  for (int i = 0; i < 9; ++i) in[i] = i, io[i] = 10 * i;
  MPI_Reduce_local(in, io, 3, vec, MPI_SUM); /* extent 3 doubles: 0,2 | 3,5 | 6,8 */
  for (int i = 0; i < 9; ++i) {
    int touched = i % 3 != 1;
    CHECK(io[i] == (touched ? 11.0 * i : 10.0 * i), "vector sum local [%d] = %g", i, io[i]);
  }
  double mine[9], all[9];
  for (int i = 0; i < 9; ++i) mine[i] = rank + i, all[i] = -1;
  MPI_Allreduce(mine, all, 3, vec, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < 9; ++i)
    CHECK(all[i] == (i % 3 != 1 ? nranks - 1 + i : -1), "vector max [%d] = %g", i, all[i]);
  MPI_Type_free(&vec);
#endif
}

/* Non-commutative: 2x2 integer matrix products mod a prime, in rank order. */
#define MOD 1000003LL
static MPI_Datatype mat_type;
static void matmul(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  if (*dt != mat_type) {
    fprintf(stderr, "FAIL: user op called with a datatype other than the matrix type\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long long* a = invec; /* lower ranks' product on the left */
  long long* b = inoutvec;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    long long c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                      (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
    memcpy(b, c, sizeof c);
  }
}
static void mat_of(int r, int k, long long m[4]) {
  m[0] = r + 1 + k, m[1] = 1, m[2] = k, m[3] = 2 * r + 1;
}

/* A user sum over the ints at offsets 0 and 2 of a vector type (non-contiguous). */
static MPI_Datatype pick_type;
static int pick_calls;
static void pick_sum(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  int* a = invec;
  int* b = inoutvec;
  ++pick_calls;
  CHECK(*dt == pick_type, "user op called with a datatype other than the vector type");
  for (int k = 0; k < *len; ++k) b[3 * k] += a[3 * k], b[3 * k + 2] += a[3 * k + 2];
}

static void user_ops(void) {
  MPI_Type_contiguous(4, MPI_LONG_LONG, &mat_type);
  MPI_Type_commit(&mat_type);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  int commute = 1;
  MPI_Op_commutative(op, &commute);
  CHECK(commute == 0, "Op_commutative of a non-commutative op: %d", commute);
  MPI_Op_commutative(MPI_SUM, &commute);
  CHECK(commute == 1, "MPI_SUM is commutative");
  enum { K = 3 };
  long long mine[K][4], all[K][4], want[K][4];
  for (int k = 0; k < K; ++k) {
    mat_of(rank, k, mine[k]);
    mat_of(0, k, want[k]);
    for (int r = 1; r < nranks; ++r) {
      long long m[4];
      mat_of(r, k, m);
      int one = 1;
      MPI_Datatype dt = mat_type;
      matmul(want[k], m, &one, &dt); /* m = want * m */
      memcpy(want[k], m, sizeof m);
    }
  }
  MPI_Allreduce(mine, all, K, mat_type, op, MPI_COMM_WORLD);
  for (int k = 0; k < K; ++k)
    CHECK(memcmp(all[k], want[k], sizeof want[k]) == 0, "matrix product %d: %lld %lld %lld %lld", k,
          all[k][0], all[k][1], all[k][2], all[k][3]);
  long long red[K][4];
  MPI_Reduce(mine, red, K, mat_type, op, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < K; ++k)
      CHECK(memcmp(red[k], want[k], sizeof want[k]) == 0, "Reduce matrix product %d", k);
  MPI_Op_free(&op);
  CHECK(op == MPI_OP_NULL, "Op_free resets the handle");

  MPI_Type_vector(2, 1, 2, MPI_INT, &pick_type); /* ints 0 and 2; extent 3 ints */
  MPI_Type_commit(&pick_type);
  MPI_Op psum;
  MPI_Op_create(pick_sum, 1, &psum);
  int in[6] = {1, 2, 3, 4, 5, 6}, io[6] = {10, 20, 30, 40, 50, 60};
  MPI_Reduce_local(in, io, 2, pick_type, psum);
  int wl[6] = {11, 20, 33, 44, 50, 66};
  CHECK(memcmp(io, wl, sizeof wl) == 0 && pick_calls > 0, "user op on a vector type (local)");
  int v[6], r[6];
  for (int i = 0; i < 6; ++i) v[i] = rank * 10 + i, r[i] = -5;
  MPI_Allreduce(v, r, 2, pick_type, psum, MPI_COMM_WORLD);
  for (int i = 0; i < 6; ++i) {
    int want_i = 10 * nranks * (nranks - 1) / 2 + nranks * i;
    CHECK(r[i] == (i % 3 == 1 ? -5 : want_i), "user op on a vector type [%d] = %d", i, r[i]);
  }
  MPI_Op_free(&psum);
  MPI_Type_free(&pick_type);
  MPI_Type_free(&mat_type);
}

static void expect_class(int rc, int cls, const char* what) {
  int c = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void invalid_pairs(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  float f[2] = {1, 2}, g[2] = {3, 4};
  int i2[2] = {1, 2}, j2[2] = {3, 4};
  expect_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BAND), MPI_ERR_OP, "BAND on FLOAT");
  expect_class(MPI_Reduce_local(i2, j2, 2, MPI_INT, MPI_MINLOC), MPI_ERR_OP, "MINLOC on INT");
  expect_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_LXOR), MPI_ERR_OP, "LXOR on FLOAT");
  expect_class(MPI_Allreduce(f, g, 2, MPI_FLOAT, MPI_BXOR, MPI_COMM_WORLD), MPI_ERR_OP,
               "Allreduce BXOR on FLOAT");
  MPI_Op sum = MPI_SUM;
  expect_class(MPI_Op_free(&sum), MPI_ERR_OP, "free MPI_SUM");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  predefined_types();
  complex_types();
  locations();
  derived_types();
  user_ops();
  invalid_pairs();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_ops\n");
  MPI_Finalize();
  return 0;
}
