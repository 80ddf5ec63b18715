/* ranks: 1 2 4 */
/* Attribute caching: communicator keyvals with copy and delete callbacks and their
 * extra_state, set/get/replace/delete, copy on MPI_Comm_dup (user copy, MPI_COMM_DUP_FN,
 * MPI_COMM_NULL_COPY_FN), delete on MPI_Comm_free, a freed keyval whose attributes
 * live on, failing callbacks, the MPI-1 calls (Keyval_create, Attr_put...), window
 * keyvals, the predefined keys, and MPI_Finalize deleting MPI_COMM_SELF's attributes
 * first (then MPI_COMM_WORLD's) while MPI still works. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, nranks;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

/* What the callbacks saw: counted per extra_state. */
struct counts {
  int copies, deletes;
  void* last_deleted;
};

static int copy_plus_one(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)keyval;
  ((struct counts*)extra)->copies++;
  *(void**)out = (char*)in + 1; /* the duplicate gets a different value */
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  ((struct counts*)extra)->deletes++;
  ((struct counts*)extra)->last_deleted = value;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
  return MPI_ERR_OTHER;
}

static int failing_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  return MPI_ERR_OTHER;
}

static void* get(MPI_Comm comm, int keyval, int want_flag) {
  void* v = NULL;
  int flag = -1;
  int rc = MPI_Comm_get_attr(comm, keyval, &v, &flag);
  CHECK(rc == MPI_SUCCESS, "Comm_get_attr(keyval %d) returned %d", keyval, rc);
  CHECK(flag == want_flag, "Comm_get_attr(keyval %d): flag %d, expected %d", keyval, flag,
        want_flag);
  return v;
}

static void set_get_replace_delete(void) {
  struct counts c = {0, 0, NULL};
  int kv;
  CHECK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &kv, &c) == MPI_SUCCESS,
        "Comm_create_keyval");
  CHECK(kv != MPI_KEYVAL_INVALID, "keyval is MPI_KEYVAL_INVALID");
  get(MPI_COMM_WORLD, kv, 0);
  static char a[4], b[4];
  MPI_Comm_set_attr(MPI_COMM_WORLD, kv, a);
  CHECK(get(MPI_COMM_WORLD, kv, 1) == a, "attribute is not the pointer set");
  MPI_Comm_set_attr(MPI_COMM_WORLD, kv, b); /* replacing deletes the old value */
  CHECK(c.deletes == 1 && c.last_deleted == a, "replace: %d deletes", c.deletes);
  CHECK(get(MPI_COMM_WORLD, kv, 1) == b, "replaced attribute");
  MPI_Comm_delete_attr(MPI_COMM_WORLD, kv);
  CHECK(c.deletes == 2 && c.last_deleted == b, "delete_attr: %d deletes", c.deletes);
  get(MPI_COMM_WORLD, kv, 0);
  /* Attributes are per communicator. */
  MPI_Comm_set_attr(MPI_COMM_SELF, kv, a);
  get(MPI_COMM_WORLD, kv, 0);
  MPI_Comm_delete_attr(MPI_COMM_SELF, kv);
  MPI_Comm_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval left %d", kv);
  CHECK(c.copies == 0 && c.deletes == 3, "copies %d deletes %d", c.copies, c.deletes);
}

static void dup_and_free(void) {
  struct counts c1 = {0, 0, NULL}, c2 = {0, 0, NULL}, c3 = {0, 0, NULL};
  int k_plus, k_dup, k_null;
  MPI_Comm_create_keyval(copy_plus_one, count_delete, &k_plus, &c1);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k_dup, &c2);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &k_null, &c3);
  static char v[8];
  MPI_Comm base, copy, copy2;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_attr(base, k_plus, v);
  MPI_Comm_set_attr(base, k_dup, v + 2);
  MPI_Comm_set_attr(base, k_null, v + 4);
  MPI_Comm_dup(base, &copy);
  CHECK(c1.copies == 1, "copy callback ran %d times", c1.copies);
  CHECK(get(copy, k_plus, 1) == v + 1, "user copy value");
  CHECK(get(copy, k_dup, 1) == v + 2, "MPI_COMM_DUP_FN value");
  get(copy, k_null, 0);
  /* A dup of the dup copies again (v+2 from v+1). */
  MPI_Comm_dup(copy, &copy2);
  CHECK(get(copy2, k_plus, 1) == v + 2, "second copy value");
  /* Freeing a keyval keeps the attributes set with it; free runs their deletes. */
  MPI_Comm_free_keyval(&k_plus);
  MPI_Comm_free(&copy2);
  CHECK(c1.deletes == 1 && c1.last_deleted == v + 2 && c2.deletes == 1,
        "free of copy2: %d %d deletes", c1.deletes, c2.deletes);
  MPI_Comm_free(&copy);
  CHECK(c1.deletes == 2 && c2.deletes == 2 && c3.deletes == 0, "free of copy: %d %d %d",
        c1.deletes, c2.deletes, c3.deletes);
  MPI_Comm_free(&base);
  CHECK(c1.deletes == 3 && c2.deletes == 3 && c3.deletes == 1, "free of base: %d %d %d",
        c1.deletes, c2.deletes, c3.deletes);
  MPI_Comm_free_keyval(&k_dup);
  MPI_Comm_free_keyval(&k_null);
  /* The communicator still works after all that. */
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == nranks, "allreduce after attribute work gave %d", sum);
}

static void failing_callbacks(void) {
  MPI_Comm base, copy = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  int k_copy, k_del;
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &k_copy, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &k_del, NULL);
  MPI_Comm_set_attr(base, k_copy, &copy);
  CHECK(MPI_Comm_dup(base, &copy) != MPI_SUCCESS, "Comm_dup with a failing copy succeeded");
  MPI_Comm_delete_attr(base, k_copy);
  MPI_Comm_set_attr(base, k_del, &copy);
  CHECK(MPI_Comm_delete_attr(base, k_del) != MPI_SUCCESS,
        "delete_attr with a failing delete succeeded");
  MPI_Comm_free_keyval(&k_copy);
  MPI_Comm_free_keyval(&k_del);
  /* base keeps the attribute whose delete fails: Comm_free reports it. */
  int rc = MPI_Comm_free(&base);
  CHECK(rc != MPI_SUCCESS, "Comm_free with a failing delete callback succeeded");
}

static void legacy_calls(void) {
  struct counts c = {0, 0, NULL};
  int kv, flag;
  void* v;
  static int x;
  MPI_Keyval_create(MPI_DUP_FN, count_delete, &kv, &c);
  MPI_Attr_put(MPI_COMM_WORLD, kv, &x);
  MPI_Attr_get(MPI_COMM_WORLD, kv, &v, &flag);
  CHECK(flag && v == &x, "Attr_get: flag %d", flag);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Attr_get(dup, kv, &v, &flag);
  CHECK(flag && v == &x, "MPI_DUP_FN copy: flag %d", flag);
  MPI_Comm_free(&dup);
  MPI_Attr_delete(MPI_COMM_WORLD, kv);
  CHECK(c.deletes == 2, "legacy deletes %d", c.deletes);
  MPI_Keyval_free(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "Keyval_free left %d", kv);
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kv, NULL);
  MPI_Keyval_free(&kv);
}

static void window_keyvals_and_predefined(void) {
  int kv;
  CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL) == MPI_SUCCESS,
        "Win_create_keyval");
  CHECK(kv != MPI_KEYVAL_INVALID, "window keyval is invalid");
  MPI_Win_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "Win_free_keyval left %d", kv);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL);
  MPI_Win_free_keyval(&kv);
  int* ub = get(MPI_COMM_WORLD, MPI_TAG_UB, 1);
  CHECK(*ub >= 32767, "MPI_TAG_UB %d", *ub);
  int* last = get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, 1);
  CHECK(*last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE", *last);
#ifdef INTERLACE_MPI
  /* Messages other MPIs word differently (or handle through another error handler). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int ckv, cls, flag;
  void* v;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL);
  MPI_Error_class(MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag), &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "window keyval on a communicator: class %d", cls);
  MPI_Error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v), &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", cls);
  MPI_Error_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, ckv), &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "deleting an unset attribute: class %d", cls);
  MPI_Error_class(MPI_Win_get_attr(MPI_WIN_NULL, kv, &v, &flag), &cls);
  CHECK(cls == MPI_ERR_WIN, "Win_get_attr(MPI_WIN_NULL): class %d", cls);
  MPI_Error_class(MPI_Comm_free_keyval(&ckv), &cls);
  MPI_Error_class(MPI_Comm_free_keyval(&ckv), &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "freeing MPI_KEYVAL_INVALID: class %d", cls);
  MPI_Win_free_keyval(&kv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}

/* Finalize: SELF's delete callback runs first, while MPI still works, then WORLD's. */
static int order[2], deleted;

static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)value, (void)extra;
  int finalized = 1, r = -1;
  MPI_Finalized(&finalized);
  if (comm == MPI_COMM_SELF && !finalized && MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS &&
      r == rank)
    order[deleted] = 1;
  deleted++;
  return MPI_SUCCESS;
}

static int world_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)value, (void)extra;
  if (comm == MPI_COMM_WORLD && deleted < 2) order[deleted] = 2;
  deleted++;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  set_get_replace_delete();
  dup_and_free();
  failing_callbacks();
  legacy_calls();
  window_keyvals_and_predefined();
  int kself, kworld;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, world_delete, &kworld, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, kworld, NULL); /* set first, deleted second */
#ifdef INTERLACE_MPI
  /* A failing delete callback at Finalize is reported, and MPI is finalized anyway. */
  int kfail;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kfail, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, kfail, NULL); /* deleted after kself (reverse order) */
  MPI_Comm_free_keyval(&kfail);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#endif
  MPI_Comm_set_attr(MPI_COMM_SELF, kself, NULL);
  MPI_Comm_free_keyval(&kself);
  MPI_Comm_free_keyval(&kworld);
  int rc = MPI_Finalize(), finalized = 0;
  MPI_Finalized(&finalized);
#ifdef INTERLACE_MPI
  if (rc == MPI_SUCCESS || !finalized) {
    fprintf(stderr, "FAIL: rank %d: Finalize with a failing delete: rc %d finalized %d\n", rank,
            rc, finalized);
    return 1;
  }
#else
  (void)rc;
#endif
  /* Open MPI deletes WORLD's attributes at Finalize only from version 5 on: SELF first
   * is what MPI requires, WORLD's delete is checked when it ran. */
  if (deleted < 1 || order[0] != 1 || (deleted == 2 && order[1] != 2)) {
    fprintf(stderr, "FAIL: rank %d: Finalize deleted %d attributes in order %d %d\n", rank,
            deleted, order[0], order[1]);
    return 1;
  }
  if (rank == 0) printf("OK conf_attr\n");
  return 0;
}
