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

#endif /* INTERLACE_MPI_ATTR_H */
