// Internal: the three ways an MPI collective runs (blocking, non-blocking, persistent)
// around one start_* function, and the argument conversions of the large-count `_c`
// forms and of the persistent forms, which keep their own copy of the arrays.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "mpi_coll_impl.hpp"

namespace interlace::mpi::collimpl {

template <class Start>
int blocking(const char* call, MPI_Comm comm, Start&& start) {
  return guard(call, comm, [&] { complete(start()); });
}

template <class Start>
int nonblocking(const char* call, MPI_Comm comm, MPI_Request* request, Start&& start) {
  return guard(call, comm, [&] {
    check_request_arg(call, request);
    to_request(start(), comm, request);
  });
}

// MPI_*_init: `make` runs once (checks and copies the arguments) and returns what
// MPI_Start runs each time. The info argument carries no hint interlace uses.
using Starter = std::function<Pending()>;
int persistent(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request,
               const std::function<Starter()>& make);

// MPI_ERR_ROOT naming root unless it is a rank of comm (checked at init: every rank
// knows the root).
void check_root_arg(const char* call, MPI_Comm comm, int root);

// An argument array as the call saw it: a copy of its first n entries, or null.
template <class T>
struct Arr {
  std::vector<T> v;
  bool null = true;
  const T* get() const { return null ? nullptr : v.data(); }
};
Arr<int> arr(const int* a, size_t n);
Arr<MPI_Aint> arr(const MPI_Aint* a, size_t n);
// `_c` arguments narrowed to what interlace carries (an int of elements or of
// extents); MPI_ERR_COUNT / MPI_ERR_ARG naming the value and the argument otherwise.
int count_c(const char* call, MPI_Count c, const char* name);
Arr<int> counts_c(const char* call, const MPI_Count* a, size_t n, const char* name);
Arr<int> displs_c(const char* call, const MPI_Aint* a, size_t n, const char* name);

// A persistent request keeps its derived datatypes alive (MPI: the program may free
// them after MPI_*_init): a private copy under a handle of its own, released with the
// request. Predefined types, MPI_DATATYPE_NULL and invalid handles are passed through
// (an invalid one is reported where the collective uses it, at MPI_Start).
struct KeptType {
  MPI_Datatype h = MPI_DATATYPE_NULL;
  std::shared_ptr<void> hold;
};
KeptType keep_type(MPI_Datatype t);
struct KeptTypes {
  Arr<int> a;
  std::vector<std::shared_ptr<void>> hold;
  const MPI_Datatype* get() const { return a.get(); }
};
KeptTypes keep_types(const MPI_Datatype* t, size_t n);

// How many entries an array argument has: one per rank, one per rank at the root only,
// none when sendbuf is MPI_IN_PLACE, one per in- or out-neighbour.
size_t all_n(MPI_Comm comm);
// Entries of Reduce_scatter's recvcounts: the local group (differs on intercommunicators).
size_t local_n(MPI_Comm comm);
size_t root_n(MPI_Comm comm, int root);
size_t send_n(MPI_Comm comm, const void* sendbuf);
size_t in_n(const char* call, MPI_Comm comm);
size_t out_n(const char* call, MPI_Comm comm);

}  // namespace interlace::mpi::collimpl
