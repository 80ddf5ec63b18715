// The C calls of attribute caching on communicators and windows (datatypes: in the
// datatype files), the predefined copy/delete callbacks, and the handle checks.
#include <string>

#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_errh.hpp"

namespace interlace::mpi {
namespace {

HandleCheck& check_of(AttrKind k) {
  static HandleCheck checks[3] = {};
  return checks[static_cast<int>(k)];
}

void get(AttrKind k, int h, int keyval, void* attribute_val, int* flag) {
  attr_check_handle(k, h);
  need(attribute_val, "attribute_val");
  need(flag, "flag");
  *flag = attr_get(k, h, keyval, attribute_val) ? 1 : 0;
}

}  // namespace

void attr_register_handle_check(AttrKind k, HandleCheck check) { check_of(k) = check; }

void attr_check_handle(AttrKind k, int h) {
  if (HandleCheck c = check_of(k)) return c(h);
  switch (k) {
    case AttrKind::comm: comm_obj(h); return;
    case AttrKind::type:  // attributes may be cached on a type before it is committed
      if (!state().types.get(h))
        raise(MPI_ERR_TYPE, (h == MPI_DATATYPE_NULL ? std::string("MPI_DATATYPE_NULL")
                                                    : "datatype " + std::to_string(h)) +
                                " is not a valid datatype");
      return;
    case AttrKind::win:
      raise(MPI_ERR_WIN, h == MPI_WIN_NULL ? std::string("MPI_WIN_NULL is not a window")
                                           : "window " + std::to_string(h) + " is not valid");
  }
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int il_mpi_null_copy_fn(int, int, void*, void*, void*, int* flag) {
  if (flag) *flag = 0;
  return MPI_SUCCESS;
}

int il_mpi_dup_fn(int, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  if (flag) *flag = 1;
  return MPI_SUCCESS;
}

int il_mpi_null_delete_fn(int, int, void*, void*) { return MPI_SUCCESS; }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                           void* extra_state) {
  return guard("MPI_Comm_create_keyval", MPI_COMM_NULL, [&] {
    need(comm_keyval, "comm_keyval");
    *comm_keyval =
        attr_create_keyval(AttrKind::comm, comm_copy_attr_fn, comm_delete_attr_fn, extra_state);
  });
}

int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
  return guard("MPI_Keyval_create", MPI_COMM_NULL, [&] {
    need(keyval, "keyval");
    *keyval = attr_create_keyval(AttrKind::comm, copy_fn, delete_fn, extra_state);
  });
}

int MPI_Comm_free_keyval(int* comm_keyval) {
  return guard("MPI_Comm_free_keyval", MPI_COMM_NULL,
               [&] { attr_free_keyval(AttrKind::comm, comm_keyval); });
}

int MPI_Keyval_free(int* keyval) {
  return guard("MPI_Keyval_free", MPI_COMM_NULL,
               [&] { attr_free_keyval(AttrKind::comm, keyval); });
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return guard("MPI_Comm_set_attr", comm, [&] {
    attr_check_handle(AttrKind::comm, comm);
    attr_set(AttrKind::comm, comm, comm_keyval, attribute_val);
  });
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return guard("MPI_Attr_put", comm, [&] {
    attr_check_handle(AttrKind::comm, comm);
    attr_set(AttrKind::comm, comm, keyval, attribute_val);
  });
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return guard("MPI_Comm_get_attr", comm,
               [&] { get(AttrKind::comm, comm, comm_keyval, attribute_val, flag); });
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return guard("MPI_Attr_get", comm,
               [&] { get(AttrKind::comm, comm, keyval, attribute_val, flag); });
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return guard("MPI_Comm_delete_attr", comm, [&] {
    attr_check_handle(AttrKind::comm, comm);
    attr_delete(AttrKind::comm, comm, comm_keyval);
  });
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return guard("MPI_Attr_delete", comm, [&] {
    attr_check_handle(AttrKind::comm, comm);
    attr_delete(AttrKind::comm, comm, keyval);
  });
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                          void* extra_state) {
  return guard("MPI_Win_create_keyval", MPI_COMM_NULL, [&] {
    need(win_keyval, "win_keyval");
    *win_keyval =
        attr_create_keyval(AttrKind::win, win_copy_attr_fn, win_delete_attr_fn, extra_state);
  });
}

int MPI_Win_free_keyval(int* win_keyval) {
  return guard("MPI_Win_free_keyval", MPI_COMM_NULL,
               [&] { attr_free_keyval(AttrKind::win, win_keyval); });
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  return win_guard("MPI_Win_set_attr", win, [&] {
    attr_check_handle(AttrKind::win, win);
    attr_set(AttrKind::win, win, win_keyval, attribute_val);
  });
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  return win_guard("MPI_Win_get_attr", win,
               [&] { get(AttrKind::win, win, win_keyval, attribute_val, flag); });
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  return win_guard("MPI_Win_delete_attr", win, [&] {
    attr_check_handle(AttrKind::win, win);
    attr_delete(AttrKind::win, win, win_keyval);
  });
}

}  // extern "C"
