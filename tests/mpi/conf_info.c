/* ranks: 1 2 */
/* MPI_Info: set/get/valuelen/nkeys/nthkey/delete/dup/free, replacing a value, keys in
 * the order set, the error classes of bad keys and values and of a missing key,
 * MPI_INFO_ENV, communicator hints (Comm_set_info/get_info), and with MPI 4
 * Info_get_string and Info_create_env. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "FAIL: rank %d line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                               \
    }                                                             \
  } while (0)

#if defined(INTERLACE_MPI) || MPI_VERSION >= 4
#define HAVE_MPI4_INFO 1
#endif

static int class_of(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static void basics(void) {
  MPI_Info info, copy;
  char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
  int flag, n, len;
  MPI_Info_create(&info);
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 0, "new info has %d keys", n);
  MPI_Info_set(info, "b_key", "one");
  MPI_Info_set(info, "a_key", "two");
  MPI_Info_set(info, "b_key", "three"); /* replaces, keeps its place */
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 2, "nkeys %d", n);
  MPI_Info_get_nthkey(info, 0, key);
  CHECK(strcmp(key, "b_key") == 0, "0th key \"%s\"", key);
  MPI_Info_get_nthkey(info, 1, key);
  CHECK(strcmp(key, "a_key") == 0, "1st key \"%s\"", key);
  MPI_Info_get(info, "b_key", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "three") == 0, "b_key = \"%s\" (flag %d)", value, flag);
  MPI_Info_get(info, "b_key", 2, value, &flag); /* truncated to valuelen characters */
  CHECK(flag && strcmp(value, "th") == 0, "truncated value \"%s\"", value);
  MPI_Info_get(info, "missing", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(!flag, "missing key found");
  MPI_Info_get_valuelen(info, "a_key", &len, &flag);
  CHECK(flag && len == 3, "valuelen %d flag %d", len, flag);
  MPI_Info_get_valuelen(info, "missing", &len, &flag);
  CHECK(!flag, "valuelen of a missing key: flag %d", flag);
  /* A dup is independent. */
  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "a_key");
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 1, "after delete: %d keys", n);
  MPI_Info_get(copy, "a_key", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "two") == 0, "dup lost a_key");
#ifdef HAVE_MPI4_INFO
  int buflen = 0;
  MPI_Info_get_string(copy, "b_key", &buflen, value, &flag);
  CHECK(flag && buflen == 6, "get_string length query: buflen %d", buflen);
  buflen = 3;
  MPI_Info_get_string(copy, "b_key", &buflen, value, &flag);
  CHECK(flag && buflen == 6 && strcmp(value, "th") == 0, "get_string truncated: \"%s\" %d",
        value, buflen);
  buflen = sizeof value;
  MPI_Info_get_string(copy, "b_key", &buflen, value, &flag);
  CHECK(flag && strcmp(value, "three") == 0, "get_string \"%s\"", value);
#endif
  MPI_Info_free(&info);
  MPI_Info_free(&copy);
  CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "Info_free did not set MPI_INFO_NULL");
}

static void errors(void) {
  MPI_Info info;
  char big_key[MPI_MAX_INFO_KEY + 10], big_value[MPI_MAX_INFO_VAL + 10];
  memset(big_key, 'k', sizeof big_key - 1);
  big_key[sizeof big_key - 1] = '\0';
  memset(big_value, 'v', sizeof big_value - 1);
  big_value[sizeof big_value - 1] = '\0';
  MPI_Info_create(&info);
  int rc = MPI_Info_delete(info, "nothing");
  CHECK(class_of(rc) == MPI_ERR_INFO_NOKEY, "delete of a missing key: class %d", class_of(rc));
  rc = MPI_Info_set(info, big_key, "x");
  CHECK(class_of(rc) == MPI_ERR_INFO_KEY, "too long key: class %d", class_of(rc));
  rc = MPI_Info_set(info, "k", big_value);
  CHECK(class_of(rc) == MPI_ERR_INFO_VALUE, "too long value: class %d", class_of(rc));
  MPI_Info_free(&info);
#ifdef INTERLACE_MPI
  int n;
  char key[MPI_MAX_INFO_KEY + 1];
  rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
  CHECK(class_of(rc) == MPI_ERR_INFO, "nkeys of MPI_INFO_NULL: class %d", class_of(rc));
  MPI_Info_create(&info);
  rc = MPI_Info_get_nthkey(info, 0, key);
  CHECK(class_of(rc) == MPI_ERR_ARG, "nthkey past the end: class %d", class_of(rc));
  MPI_Info_free(&info);
#endif
}

static void env_and_comm_hints(void) {
  int n, flag;
  char value[MPI_MAX_INFO_VAL + 1];
  MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
  CHECK(n >= 0, "MPI_INFO_ENV has %d keys", n);
  MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(!flag || strlen(value) > 0, "MPI_INFO_ENV command is empty");
#ifdef HAVE_MPI4_INFO
  MPI_Info env;
  char* args[] = {"prog", "arg1", NULL};
  MPI_Info_create_env(2, args, &env);
  MPI_Info_get_nkeys(env, &n);
  CHECK(n >= 0, "create_env has %d keys", n);
  MPI_Info_free(&env);
#endif
  MPI_Comm comm, dup;
  MPI_Info hints, used;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Info_set(hints, "interlace_test_hint", "42");
  MPI_Comm_set_info(comm, hints);
  MPI_Info_free(&hints);
  MPI_Comm_get_info(comm, &used);
  CHECK(used != MPI_INFO_NULL, "Comm_get_info gave MPI_INFO_NULL");
#ifdef INTERLACE_MPI /* hints are kept as given (other MPIs return the ones they use) */
  MPI_Info_get(used, "interlace_test_hint", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "42") == 0, "hint lost: flag %d", flag);
  MPI_Comm_dup(comm, &dup);
  MPI_Info_free(&used);
  MPI_Comm_get_info(dup, &used);
  MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "true") == 0, "dup lost the hint: flag %d", flag);
  MPI_Comm_free(&dup);
#endif
  (void)dup;
  MPI_Info_free(&used);
  MPI_Comm_free(&comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* Info errors may be reported on either predefined communicator. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  basics();
  errors();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  env_and_comm_hints();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_info\n");
  MPI_Finalize();
  return 0;
}
