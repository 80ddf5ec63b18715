/* Part of mpi.h: attribute caching, MPI_Info, error handlers and error classes.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_ATTR_H
#define INTERLACE_MPI_ATTR_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/attr.h"
#endif

/* ---- attribute caching -------------------------------------------------------------
 * Keyvals are ints > 0; the predefined keys (MPI_TAG_UB ..., MPI_WIN_BASE ...) are below
 * 256 and user keyvals from 256 up, one numbering for communicators, datatypes and
 * windows (a keyval is only valid with the kind it was created for). */
#define MPI_KEYVAL_INVALID 0
#define MPI_LASTUSEDCODE 7 /* on every communicator: the largest user error class/code */

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out,
                                       int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
/* MPI-1 names (deprecated, still used) */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

/* The predefined callbacks: null copy (not copied), dup (the value is copied), null
 * delete. Functions, so they may also be called directly. */
int il_mpi_null_copy_fn(int oldh, int keyval, void *extra_state, void *attribute_val_in,
                        void *attribute_val_out, int *flag);
int il_mpi_dup_fn(int oldh, int keyval, void *extra_state, void *attribute_val_in,
                  void *attribute_val_out, int *flag);
int il_mpi_null_delete_fn(int h, int keyval, void *attribute_val, void *extra_state);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)il_mpi_null_copy_fn)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)il_mpi_dup_fn)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)il_mpi_null_delete_fn)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)il_mpi_null_copy_fn)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)il_mpi_dup_fn)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)il_mpi_null_delete_fn)
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)il_mpi_null_copy_fn)
#define MPI_DUP_FN ((MPI_Copy_function *)il_mpi_dup_fn)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)il_mpi_null_delete_fn)

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
/* MPI_Comm_get_attr and MPI_Attr_get are declared in mpi.h */
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_delete(MPI_Comm comm, int keyval);

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int MPI_Win_free_keyval(int *win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);

/* ---- info objects (usable before MPI_Init) ------------------------------------------ */
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
int MPI_Info_create(MPI_Info *info);
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int MPI_Info_delete(MPI_Info info, const char *key);
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int MPI_Info_free(MPI_Info *info);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);

/* ---- error handlers ------------------------------------------------------------------
 * Handles: MPI_ERRHANDLER_NULL 0, MPI_ERRORS_ARE_FATAL 1, MPI_ERRORS_RETURN 2,
 * MPI_ERRORS_ABORT 3, user handlers from 4. Freeing a predefined handler succeeds. */
#define MPI_ERRORS_ABORT ((MPI_Errhandler)3)
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn; /* MPI-2 names */
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Comm_errhandler_function MPI_Handler_function;
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);

/* ---- user error classes, codes and strings -------------------------------------------
 * They take the values above MPI_ERR_LASTCODE in order (MPI_LASTUSEDCODE is the last). */
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
int MPI_Remove_error_class(int errorclass);
int MPI_Remove_error_code(int errorcode);
int MPI_Remove_error_string(int errorcode);

#endif /* INTERLACE_MPI_ATTR_H */
