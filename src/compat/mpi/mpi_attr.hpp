// Internal contract: attribute caching shared by the MPI object kinds (communicators,
// datatypes, windows). mpi_attr.cpp implements it and the MPI_*_keyval / *_attr calls.
// The owner of each kind calls attr_copy_all on duplication and attr_delete_all before
// it frees a handle; internal keyvals let other MPI files hang C++ state on an object
// (a communicator's topology, a window's info) and have it copied and freed with it.
#pragma once
#include <functional>
#include <memory>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

enum class AttrKind { comm, type, win };

// Runs the copy callbacks of every attribute on `from` and sets those they keep on `to`
// (MPI_Comm_dup, MPI_Comm_idup, MPI_Type_dup). Raises the callback's error as MpiError.
void attr_copy_all(AttrKind k, int from, int to);
// Runs the delete callbacks of every attribute on h and forgets them (MPI_Comm_free,
// MPI_Type_free, MPI_Win_free, and MPI_Finalize for MPI_COMM_SELF then MPI_COMM_WORLD).
void attr_delete_all(AttrKind k, int h);

// Internal keyvals: state of C++ type owned by the object. copy(nullptr-free source)
// returns the value for the duplicate (an empty pointer: not copied).
using InternalCopy = std::function<std::shared_ptr<void>(const std::shared_ptr<void>&)>;
int attr_internal_keyval(AttrKind k, InternalCopy copy);
void attr_set_internal(AttrKind k, int h, int keyval, std::shared_ptr<void> value);
std::shared_ptr<void> attr_get_internal(AttrKind k, int h, int keyval);  // null if unset

// Predefined attributes of a kind (MPI_TAG_UB on communicators, MPI_WIN_BASE on
// windows): the provider returns true and stores the attribute value (a pointer, as
// MPI_*_get_attr returns it) when keyval is one of its keys for handle h.
using PredefinedAttr = bool (*)(int h, int keyval, void* attribute_val);
void attr_register_predefined(AttrKind k, PredefinedAttr provider);


// ---- user keyvals (the C calls of every kind are thin wrappers around these) ---------
// Copy and delete callbacks with the handle as int: MPI_Comm_copy_attr_function,
// MPI_Type_copy_attr_function and MPI_Win_copy_attr_function all have this type.
// A null callback is the null copy (attribute not copied) / null delete (nothing run).
using AttrCopyFn = int (*)(int oldh, int keyval, void* extra_state, void* attribute_val_in,
                           void* attribute_val_out, int* flag);
using AttrDeleteFn = int (*)(int h, int keyval, void* attribute_val, void* extra_state);
// Keyvals are > MPI_KEYVAL_INVALID (0); predefined ones are < kFirstUserKeyval.
constexpr int kFirstUserKeyval = 256;
int attr_create_keyval(AttrKind k, AttrCopyFn copy, AttrDeleteFn del, void* extra_state);
// Sets *keyval to MPI_KEYVAL_INVALID; the callbacks stay in use for the attributes
// already set with it (MPI: freeing a keyval does not delete its attributes).
void attr_free_keyval(AttrKind k, int* keyval);
// The handle is checked by the caller. set replaces a value (running the delete
// callback on the old one); get stores the value in *(void**)attribute_val.
void attr_set(AttrKind k, int h, int keyval, void* value);
bool attr_get(AttrKind k, int h, int keyval, void* attribute_val);
void attr_delete(AttrKind k, int h, int keyval);

// The owner of a kind registers how its handles are checked (raises the kind's error
// class naming the handle, e.g. MPI_ERR_WIN). Communicators and datatypes are checked
// here (a datatype need not be committed); a window handle with no check registered is
// MPI_ERR_WIN.
using HandleCheck = void (*)(int h);
void attr_register_handle_check(AttrKind k, HandleCheck check);
void attr_check_handle(AttrKind k, int h);

}  // namespace interlace::mpi
