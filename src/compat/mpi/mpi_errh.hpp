// Internal: error handlers beyond guard()'s communicator ones (mpi_impl.hpp): user
// handlers, window and file handlers, user error classes. Window and file calls report
// their errors with win_guard / file_guard (or win_error / file_error for errors found
// outside a guard), which invoke the window's (file's) handler.
#pragma once
#include <string>
#include <utility>

#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

// The largest error class or code added by MPI_Add_error_class/_code (MPI_ERR_LASTCODE
// before any): the MPI_LASTUSEDCODE attribute.
int last_used_code() noexcept;

// "MPI_ERR_RANK" and "invalid rank" for a predefined class, else nullptr.
const char* predefined_class_name(int cls);
const char* predefined_class_description(int cls);

// The class and message of the exception in flight (as fail_current sees it), with
// "CALL: " removed from the front of the message.
std::pair<int, std::string> current_error(const char* call);

enum class ErrhKind { comm, win, file, session };
// Hands the error (class, message) of `call` on object `handle` of kind k to handler h:
// returns the error code under MPI_ERRORS_RETURN or after a user handler returned;
// prints "MPI error on rank R in CALL: WHAT" and ends the process for the fatal ones.
int dispatch_error(ErrhKind k, int handle, MPI_Errhandler h, const char* call, int cls,
                   const std::string& what);

// For the objects whose calls live elsewhere (sessions, mpi_session*.cpp): the same
// handler objects and checks as MPI_Comm_create/set/get/call_errhandler use.
MPI_Errhandler errh_create(ErrhKind k, void (*fn)(int*, int*, ...));
void errh_check_settable(ErrhKind k, MPI_Errhandler h);  // MPI_ERR_ARG naming h
MPI_Errhandler errh_new_reference(MPI_Errhandler h);     // what *_get_errhandler returns
void errh_call(ErrhKind k, int handle, MPI_Errhandler h, const char* call, int errorcode);

// Windows (mpi_win*.cpp): a new window's handler is MPI_ERRORS_ARE_FATAL until
// MPI_Win_set_errhandler; MPI_Win_free calls win_errhandler_forget. A window handle
// that is not valid (per attr_check_handle) reports through MPI_COMM_WORLD's handler.
MPI_Errhandler win_errhandler(MPI_Win win);
void win_errhandler_forget(MPI_Win win);
int win_fail_current(const char* call, MPI_Win win);
int win_error(MPI_Win win, const char* call, int cls, const std::string& what);
template <class Body>
inline int win_guard(const char* call, MPI_Win win, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (...) {
    return win_fail_current(call, win);
  }
}

// Files (the MPI-IO stubs): MPI_FILE_NULL holds the handler of file errors, by
// default MPI_ERRORS_RETURN as MPI says; other file handles need a registered check.
void file_register_check(HandleCheck check);
MPI_Errhandler file_errhandler(MPI_File file);
void file_errhandler_forget(MPI_File file);
int file_fail_current(const char* call, MPI_File file);
template <class Body>
inline int file_guard(const char* call, MPI_File file, Body&& body) {
  try {
    body();
    return MPI_SUCCESS;
  } catch (...) {
    return file_fail_current(call, file);
  }
}

}  // namespace interlace::mpi
