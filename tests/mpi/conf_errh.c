/* ranks: 1 2 3 */
/* Error handlers and user error classes: a user communicator handler is invoked with
 * the communicator and the code of a failing call, which then returns that code;
 * MPI_Comm_call_errhandler; the save / set / restore / free idiom (freeing a predefined
 * handler succeeds and gives MPI_ERRHANDLER_NULL); window and file handlers
 * (MPI_FILE_NULL holds the default handler of file errors, MPI_ERRORS_RETURN);
 * MPI_Add_error_class/code/string with MPI_Error_class/string and MPI_LASTUSEDCODE. */
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

static int calls, seen_code;
static MPI_Comm seen_comm;
static MPI_File seen_file;

static void comm_handler(MPI_Comm* comm, int* code, ...) {
  calls++;
  seen_comm = *comm;
  seen_code = *code;
}

static void file_handler(MPI_File* file, int* code, ...) {
  calls++;
  seen_file = *file;
  seen_code = *code;
}

static void win_handler(MPI_Win* win, int* code, ...) {
  (void)win, (void)code;
  calls++;
}

#ifdef INTERLACE_MPI
static int user_class;
static int failing_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)old, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
  return user_class;
}
#endif

static int class_of(int code) {
  int cls = -1;
  CHECK(MPI_Error_class(code, &cls) == MPI_SUCCESS, "Error_class(%d) failed", code);
  return cls;
}

static void user_comm_handler(void) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Errhandler eh, got;
  CHECK(MPI_Comm_create_errhandler(comm_handler, &eh) == MPI_SUCCESS, "create_errhandler");
  MPI_Comm_set_errhandler(comm, eh);
  MPI_Comm_get_errhandler(comm, &got);
  CHECK(got == eh, "get_errhandler gave another handler");
  MPI_Errhandler_free(&got); /* get made a new reference */
  MPI_Errhandler_free(&eh);  /* the communicator keeps it alive */
  CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
  int v = 1;
  calls = 0;
  int rc = MPI_Send(&v, 1, MPI_INT, nranks + 5, 0, comm);
  CHECK(calls == 1, "user handler ran %d times", calls);
  CHECK(rc != MPI_SUCCESS && rc == seen_code, "Send returned %d, handler saw %d", rc, seen_code);
  CHECK(class_of(rc) == MPI_ERR_RANK, "class %d, expected MPI_ERR_RANK", class_of(rc));
  int result;
  MPI_Comm_compare(seen_comm, comm, &result);
  CHECK(result == MPI_IDENT, "handler saw another communicator");
  /* Call_errhandler hands any code to the handler. */
  calls = 0;
  rc = MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  CHECK(calls == 1 && seen_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d", calls,
        seen_code);
  CHECK(rc == MPI_SUCCESS, "call_errhandler returned %d", rc);
  /* A dup inherits the handler. */
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  calls = 0;
  MPI_Send(&v, 1, MPI_INT, nranks + 5, 0, dup);
  CHECK(calls == 1, "handler of the dup ran %d times", calls);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
}

static void save_restore_free(void) {
  MPI_Errhandler saved, tmp = MPI_ERRORS_RETURN;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved);
  CHECK(MPI_Errhandler_free(&saved) == MPI_SUCCESS, "Errhandler_free of a predefined handler");
  CHECK(saved == MPI_ERRHANDLER_NULL, "freed handler is not MPI_ERRHANDLER_NULL");
  CHECK(MPI_Errhandler_free(&tmp) == MPI_SUCCESS, "Errhandler_free(MPI_ERRORS_RETURN)");
  /* MPI_ERRORS_RETURN still works after "freeing" it. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int v = 1;
  CHECK(MPI_Send(&v, 1, MPI_INT, nranks + 5, 0, MPI_COMM_WORLD) != MPI_SUCCESS, "bad send");
  /* With MPI_ERRORS_RETURN, call_errhandler returns (the handler does nothing). */
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
}

static void user_classes(void) {
  int cls, code, code2, last, flag;
  int* lastp;
  MPI_Add_error_class(&cls);
  CHECK(cls > MPI_ERR_LASTCODE, "user class %d is not above MPI_ERR_LASTCODE", cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_code(MPI_ERR_ARG, &code2);
  CHECK(code > MPI_ERR_LASTCODE && code2 > MPI_ERR_LASTCODE, "user codes %d %d", code, code2);
#ifdef INTERLACE_MPI /* Open MPI 4.1 gives MPI_ERR_UNKNOWN's value for a user class */
  CHECK(class_of(cls) == cls, "class of the user class is %d", class_of(cls));
#endif
  CHECK(class_of(code) == cls, "class of the user code is %d", class_of(code));
  CHECK(class_of(code2) == MPI_ERR_ARG, "class of a code of MPI_ERR_ARG is %d", class_of(code2));
  MPI_Add_error_string(cls, "my class");
  MPI_Add_error_string(code, "my code");
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(code, text, &len);
  CHECK(strcmp(text, "my code") == 0 && len == 7, "Error_string(code) is \"%s\"", text);
  MPI_Error_string(cls, text, &len);
  CHECK(strcmp(text, "my class") == 0, "Error_string(class) is \"%s\"", text);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag);
  CHECK(flag, "MPI_LASTUSEDCODE is not set");
  last = *lastp;
  CHECK(last >= code2 && last >= code && last >= cls, "MPI_LASTUSEDCODE %d below %d", last, code2);
  /* A user code goes through the handlers like any other. */
  MPI_Comm comm;
  MPI_Errhandler eh;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_create_errhandler(comm_handler, &eh);
  MPI_Comm_set_errhandler(comm, eh);
  MPI_Errhandler_free(&eh);
  calls = 0;
  MPI_Comm_call_errhandler(comm, code);
  CHECK(calls == 1 && seen_code == code, "user code through the handler: %d", seen_code);
  MPI_Comm_free(&comm);
}

static void window_and_file_handlers(void) {
  MPI_Errhandler weh, feh, got;
  MPI_Win_create_errhandler(win_handler, &weh);
  MPI_Errhandler_free(&weh);
  CHECK(weh == MPI_ERRHANDLER_NULL, "Win errhandler not freed");
  MPI_File_get_errhandler(MPI_FILE_NULL, &got);
  CHECK(got == MPI_ERRORS_RETURN, "default file handler is not MPI_ERRORS_RETURN");
  MPI_File_create_errhandler(file_handler, &feh);
  MPI_File_set_errhandler(MPI_FILE_NULL, feh);
  MPI_File_get_errhandler(MPI_FILE_NULL, &got);
  CHECK(got == feh, "file handler read back as another");
  MPI_Errhandler_free(&got);
#ifdef INTERLACE_MPI /* Open MPI 4.1 rejects MPI_FILE_NULL in File_call_errhandler */
  calls = 0;
  seen_file = (MPI_File)-1;
  MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO);
  CHECK(calls == 1 && seen_code == MPI_ERR_IO, "file handler: %d calls", calls);
  CHECK(seen_file == MPI_FILE_NULL, "file handler did not get MPI_FILE_NULL");
#endif
  /* A failing MPI_File_open goes to MPI_FILE_NULL's handler (on interlace every MPI-IO
   * call fails: MPI-IO is not provided). */
  calls = 0;
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/conf_errh", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(rc != MPI_SUCCESS, "opening a file in a missing directory succeeded");
  CHECK(calls == 1 && seen_code == rc, "failed File_open: file handler called %d times", calls);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&feh);
#ifdef INTERLACE_MPI
  calls = 0;
  CHECK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO) == MPI_SUCCESS,
        "File_call_errhandler under MPI_ERRORS_RETURN");
  CHECK(calls == 0, "freed file handler still called");
#endif
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  user_comm_handler();
  save_restore_free();
  user_classes();
  window_and_file_handlers();
#ifdef INTERLACE_MPI
  {
    /* MPI 4.1 names interlace has: MPI_ERRORS_ABORT can be set and read back. */
    MPI_Errhandler h;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ABORT);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &h);
    CHECK(h == MPI_ERRORS_ABORT, "MPI_ERRORS_ABORT read back as %d", h);
    int cls, rc;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    /* MPI 4.1 removal: strings first, then codes, then the class. */
    int code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "a code");
    CHECK(MPI_Remove_error_class(cls) != MPI_SUCCESS, "removed a class that has a code");
    CHECK(MPI_Remove_error_code(code) != MPI_SUCCESS, "removed a code that has a string");
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "Remove_error_string");
    MPI_Error_string(code, text, &len);
    CHECK(len == 0 && text[0] == '\0', "string of a code after removal \"%s\"", text);
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "Remove_error_code");
    CHECK(MPI_Remove_error_code(code) != MPI_SUCCESS, "removed a code twice");
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS, "Remove_error_class");
    rc = MPI_Error_class(cls, &h);
    CHECK(rc != MPI_SUCCESS, "removed class %d still valid", cls);
    CHECK(MPI_Remove_error_string(MPI_ERR_OTHER) != MPI_SUCCESS, "removed a predefined string");
    MPI_Error_string(MPI_ERR_WIN, text, &len);
    CHECK(strcmp(text, "invalid window") == 0, "Error_string(MPI_ERR_WIN) \"%s\"", text);
    /* A code that carries a message keeps a user class: a copy callback fails with one. */
    MPI_Add_error_class(&user_class);
    MPI_Add_error_string(user_class, "my failure");
    int kv;
    MPI_Comm dup;
    MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
    rc = MPI_Comm_dup(MPI_COMM_SELF, &dup);
    CHECK(rc > user_class && class_of(rc) == user_class, "dup failed with %d, class %d", rc,
          class_of(rc));
    MPI_Error_string(rc, text, &len);
    CHECK(strncmp(text, "my failure: ", 12) == 0, "Error_string \"%s\"", text);
    MPI_Comm_delete_attr(MPI_COMM_SELF, kv);
    MPI_Comm_free_keyval(&kv);
    rc = MPI_Comm_set_errhandler(MPI_COMM_SELF, 12345);
    CHECK(class_of(rc) == MPI_ERR_ARG, "set_errhandler(12345): class %d", class_of(rc));
  }
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("OK conf_errh\n");
  MPI_Finalize();
  return 0;
}
