// Persistent collectives (MPI_*_init) and the argument helpers of mpi_coll_api.hpp.
// A persistent collective request starts a fresh engine collective at each MPI_Start;
// its completion is that of a non-blocking collective, after which the request is
// inactive again (mpi_request.cpp) and can be restarted.
#include "mpi_coll_api.hpp"

#include <climits>

#include "mpi_topo.hpp"

namespace interlace::mpi::collimpl {

int persistent(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request,
               const std::function<Starter()>& make) {
  return guard(call, comm, [&] {
    require_initialized(call);
    check_request_arg(call, request);
    (void)info;
    comm_obj(comm);
    ReqObj r;
    r.kind = ReqObj::Kind::persistent_inactive;
    r.persistent = true;
    r.comm = comm;
    empty_status(&r.status);
    r.start = [start = make()](ReqObj& self) {
      Pending p = start();
      self.kind = ReqObj::Kind::coll;
      self.coll = std::move(p.req);
      self.on_complete = nullptr;
      if (p.finish) self.on_complete = [finish = std::move(p.finish)](MPI_Status&) { finish(); };
      self.keep.reset();
      if (!p.keep.empty()) self.keep = std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(p.keep));
    };
    *request = new_request(std::move(r));
  });
}

void check_root_arg(const char* call, MPI_Comm comm, int root) {
  const int size = comm_of(comm).size();
  if (root < 0 || root >= size)
    raise(MPI_ERR_ROOT, std::string(call) + ": root " + std::to_string(root) +
                            " is not a rank of a communicator of size " + std::to_string(size));
}

namespace {

template <class T>
Arr<T> copy_of(const T* a, size_t n) {
  Arr<T> r;
  if (!a) return r;
  r.null = false;
  r.v.reserve(n + 1);
  r.v.assign(a, a + n);
  r.v.push_back(0);  // data() of an empty copy is still a valid pointer
  return r;
}

// The first n entries of a as ints; bad(i) raises for an entry outside an int (the
// error names are only built then, not for every entry of every call).
template <class T, class Bad>
Arr<int> narrowed(const T* a, size_t n, Bad&& bad) {
  Arr<int> r;
  if (!a) return r;
  r.null = false;
  r.v.reserve(n + 1);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] > INT_MAX || a[i] < INT_MIN) bad(i);
    r.v.push_back(static_cast<int>(a[i]));
  }
  r.v.push_back(0);
  return r;
}

}  // namespace

Arr<int> arr(const int* a, size_t n) { return copy_of(a, n); }
Arr<MPI_Aint> arr(const MPI_Aint* a, size_t n) { return copy_of(a, n); }

int count_c(const char* call, MPI_Count c, const char* name) {
  if (c > INT_MAX)
    raise(MPI_ERR_COUNT, std::string(call) + ": " + name + " " + std::to_string(c) +
                             " is more elements than interlace carries in one call (" + std::to_string(INT_MAX) + ")");
  if (c < INT_MIN) raise(MPI_ERR_COUNT, std::string(call) + ": " + name + " " + std::to_string(c) + " is negative");
  return static_cast<int>(c);
}

Arr<int> counts_c(const char* call, const MPI_Count* a, size_t n, const char* name) {
  return narrowed(a, n, [&](size_t i) {
    count_c(call, a[i], (std::string(name) + "[" + std::to_string(i) + "]").c_str());
  });
}

Arr<int> displs_c(const char* call, const MPI_Aint* a, size_t n, const char* name) {
  return narrowed(a, n, [&](size_t i) {
    raise(MPI_ERR_ARG, std::string(call) + ": " + name + "[" + std::to_string(i) + "] " + std::to_string(a[i]) +
                           " is beyond the displacements interlace carries (an int)");
  });
}

namespace {

// Frees the private copy of a datatype when the last holder goes.
struct TypeCopy {
  int h;
  explicit TypeCopy(int handle) : h(handle) {}
  TypeCopy(const TypeCopy&) = delete;
  TypeCopy& operator=(const TypeCopy&) = delete;
  ~TypeCopy() { state().types.remove(h); }
};

}  // namespace

KeptType keep_type(MPI_Datatype t) {
  KeptType k{t, {}};
  const TypeObj* obj = state().types.get(t);
  if (!obj || obj->predefined) return k;
  k.h = state().types.add(TypeObj(*obj));
  k.hold = std::make_shared<TypeCopy>(k.h);
  return k;
}

KeptTypes keep_types(const MPI_Datatype* t, size_t n) {
  KeptTypes k;
  k.a = arr(t, n);
  for (size_t i = 0; t && i < n; ++i) {
    KeptType one = keep_type(t[i]);
    k.a.v[i] = one.h;
    if (one.hold) k.hold.push_back(std::move(one.hold));
  }
  return k;
}

size_t all_n(MPI_Comm comm) { return static_cast<size_t>(comm_of(comm).size()); }

size_t local_n(MPI_Comm comm) { return static_cast<size_t>(local_size_of(comm)); }

size_t root_n(MPI_Comm comm, int root) {
  const Communicator& c = comm_of(comm);
  // On an intercommunicator the root passes MPI_ROOT and its arrays cover the remote group.
  if (is_inter(comm)) return root == MPI_ROOT ? static_cast<size_t>(c.size()) : 0;
  return c.rank() == root ? static_cast<size_t>(c.size()) : 0;
}

size_t send_n(MPI_Comm comm, const void* sendbuf) { return sendbuf == MPI_IN_PLACE ? 0 : all_n(comm); }

size_t in_n(const char* call, MPI_Comm comm) { return neighbourhood_of(call, comm).sources.size(); }
size_t out_n(const char* call, MPI_Comm comm) { return neighbourhood_of(call, comm).dests.size(); }

}  // namespace interlace::mpi::collimpl

extern "C" int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Op op) {
  using namespace interlace::mpi;
  int narrow = 0;
  const int rc = guard("MPI_Reduce_local_c", MPI_COMM_NULL,
                       [&] { narrow = collimpl::count_c("MPI_Reduce_local_c", count, "count"); });
  return rc != MPI_SUCCESS ? rc : MPI_Reduce_local(inbuf, inoutbuf, narrow, datatype, op);
}
