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

}  // namespace interlace::mpi
