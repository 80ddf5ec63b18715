// Internal: each collective with counts written once for the entry points that only
// differ in how it runs: the large-count `_c` forms (blocking, MPI_I*_c, *_init_c) and
// the int persistent forms (*_init). A form template checks and narrows the arguments,
// then hands the mode a start function; the mode decides whether that runs now
// (Blocking, NonBlocking) or at every MPI_Start (Persistent). Only a persistent request
// copies arrays and keeps datatypes, so the blocking and I forms allocate nothing beyond
// the narrowing of their `_c` arrays.
#pragma once
#include <utility>

#include "mpi_coll_api.hpp"

namespace interlace::mpi::collimpl {

// An argument array used in place (a call that returns before the program may change it).
template <class T>
struct View {
  const T* p;
  const T* get() const { return p; }
};

// The int forms of the narrowing helpers, so one template serves int and MPI_Count
// arguments: nothing to narrow, a copy (the persistent int forms keep their arrays).
inline int count_c(const char*, int c, const char*) { return c; }
inline Arr<int> counts_c(const char*, const int* a, size_t n, const char*) { return arr(a, n); }
inline Arr<int> displs_c(const char*, const int* a, size_t n, const char*) { return arr(a, n); }

struct Transient {
  const char* call;
  MPI_Comm comm;
  void root(int) const {}  // checked by the start function, after the counts
  KeptType type(MPI_Datatype t) const { return {t, {}}; }
  template <class T>
  View<T> hold(const T* a, size_t) const { return {a}; }
  View<MPI_Datatype> types(const MPI_Datatype* t, size_t) const { return {t}; }
};

struct Blocking : Transient {
  template <class Make>
  int operator()(Make&& make) const {
    return blocking(call, comm, [&] { return make()(); });
  }
};

struct NonBlocking : Transient {
  MPI_Request* request;
  template <class Make>
  int operator()(Make&& make) const {
    return nonblocking(call, comm, request, [&] { return make()(); });
  }
};

struct Persistent {
  const char* call;
  MPI_Comm comm;
  MPI_Info info;
  MPI_Request* request;
  void root(int r) const { check_root_arg(call, comm, r); }
  KeptType type(MPI_Datatype t) const { return keep_type(t); }
  template <class T>
  Arr<T> hold(const T* a, size_t n) const { return arr(a, n); }
  KeptTypes types(const MPI_Datatype* t, size_t n) const { return keep_types(t, n); }
  template <class Make>
  int operator()(Make&& make) const {
    return persistent(call, comm, info, request, [&]() -> Starter { return make(); });
  }
};

// The start functions of the collectives that share a shape.
using StartPair = Pending (*)(const char*, const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
using StartRooted = Pending (*)(const char*, const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int,
                                MPI_Comm);

template <class M, class C>
int bcast_form(const M& m, void* buffer, C count, MPI_Datatype datatype, int root) {
  return m([&] {
    m.root(root);
    const int n = count_c(m.call, count, "count");
    return [=, t = m.type(datatype), call = m.call, comm = m.comm] {
      return start_bcast(call, buffer, n, t.h, root, comm);
    };
  });
}

// Reduce, allreduce, scan, exscan (only reduce has a root).
template <class M, class C>
int reduce_form(const M& m, coll::Kind kind, const void* sendbuf, void* recvbuf, C count, MPI_Datatype datatype,
                MPI_Op op, int root) {
  return m([&] {
    if (kind == coll::Kind::reduce) m.root(root);
    const int n = count_c(m.call, count, "count");
    return [=, t = m.type(datatype), call = m.call, comm = m.comm] {
      return start_reduce(call, kind, sendbuf, recvbuf, n, t.h, op, root, comm);
    };
  });
}

// Allgather, alltoall and their neighbour forms.
template <class M, class C>
int pair_form(const M& m, StartPair start, const void* sendbuf, C sendcount, MPI_Datatype sendtype, void* recvbuf,
              C recvcount, MPI_Datatype recvtype) {
  return m([&] {
    const int sc = count_c(m.call, sendcount, "sendcount");
    const int rc = count_c(m.call, recvcount, "recvcount");
    return [=, st = m.type(sendtype), rt = m.type(recvtype), call = m.call, comm = m.comm] {
      return start(call, sendbuf, sc, st.h, recvbuf, rc, rt.h, comm);
    };
  });
}

// Gather and scatter.
template <class M, class C>
int rooted_form(const M& m, StartRooted start, const void* sendbuf, C sendcount, MPI_Datatype sendtype,
                void* recvbuf, C recvcount, MPI_Datatype recvtype, int root) {
  return m([&] {
    m.root(root);
    const int sc = count_c(m.call, sendcount, "sendcount");
    const int rc = count_c(m.call, recvcount, "recvcount");
    return [=, st = m.type(sendtype), rt = m.type(recvtype), call = m.call, comm = m.comm] {
      return start(call, sendbuf, sc, st.h, recvbuf, rc, rt.h, root, comm);
    };
  });
}

template <class M, class C, class D>
int gatherv_form(const M& m, const void* sendbuf, C sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const C* recvcounts, const D* displs, MPI_Datatype recvtype, int root) {
  return m([&] {
    m.root(root);
    const int sc = count_c(m.call, sendcount, "sendcount");
    const size_t n = root_n(m.comm, root);
    auto rc = counts_c(m.call, recvcounts, n, "recvcounts");
    auto d = displs_c(m.call, displs, n, "displs");
    return [=, rc = std::move(rc), d = std::move(d), st = m.type(sendtype), rt = m.type(recvtype), call = m.call,
            comm = m.comm] {
      return start_gatherv(call, sendbuf, sc, st.h, recvbuf, rc.get(), d.get(), rt.h, root, comm);
    };
  });
}

template <class M, class C, class D>
int scatterv_form(const M& m, const void* sendbuf, const C* sendcounts, const D* displs, MPI_Datatype sendtype,
                  void* recvbuf, C recvcount, MPI_Datatype recvtype, int root) {
  return m([&] {
    m.root(root);
    const size_t n = root_n(m.comm, root);
    auto sc = counts_c(m.call, sendcounts, n, "sendcounts");
    auto d = displs_c(m.call, displs, n, "displs");
    const int rc = count_c(m.call, recvcount, "recvcount");
    return [=, sc = std::move(sc), d = std::move(d), st = m.type(sendtype), rt = m.type(recvtype), call = m.call,
            comm = m.comm] {
      return start_scatterv(call, sendbuf, sc.get(), d.get(), st.h, recvbuf, rc, rt.h, root, comm);
    };
  });
}

// Allgatherv (one entry per rank) and Neighbor_allgatherv (one per in-neighbour).
template <class M, class C, class D>
int allgatherv_form(const M& m, bool neighbor, const void* sendbuf, C sendcount, MPI_Datatype sendtype,
                    void* recvbuf, const C* recvcounts, const D* displs, MPI_Datatype recvtype) {
  return m([&] {
    const int sc = count_c(m.call, sendcount, "sendcount");
    const size_t n = neighbor ? in_n(m.call, m.comm) : all_n(m.comm);
    auto rc = counts_c(m.call, recvcounts, n, "recvcounts");
    auto d = displs_c(m.call, displs, n, "displs");
    return [=, rc = std::move(rc), d = std::move(d), st = m.type(sendtype), rt = m.type(recvtype), call = m.call,
            comm = m.comm] {
      return (neighbor ? start_neighbor_allgatherv : start_allgatherv)(call, sendbuf, sc, st.h, recvbuf, rc.get(),
                                                                       d.get(), rt.h, comm);
    };
  });
}

// Alltoallv (per rank; no send arrays with MPI_IN_PLACE) and Neighbor_alltoallv (per
// out- and in-neighbour).
template <class M, class C, class D>
int alltoallv_form(const M& m, bool neighbor, const void* sendbuf, const C* sendcounts, const D* sdispls,
                   MPI_Datatype sendtype, void* recvbuf, const C* recvcounts, const D* rdispls,
                   MPI_Datatype recvtype) {
  return m([&] {
    const size_t ns = neighbor ? out_n(m.call, m.comm) : send_n(m.comm, sendbuf);
    auto sc = counts_c(m.call, sendcounts, ns, "sendcounts");
    auto sd = displs_c(m.call, sdispls, ns, "sdispls");
    const size_t nr = neighbor ? in_n(m.call, m.comm) : all_n(m.comm);
    auto rc = counts_c(m.call, recvcounts, nr, "recvcounts");
    auto rd = displs_c(m.call, rdispls, nr, "rdispls");
    return [=, sc = std::move(sc), sd = std::move(sd), rc = std::move(rc), rd = std::move(rd),
            st = m.type(sendtype), rt = m.type(recvtype), call = m.call, comm = m.comm] {
      return (neighbor ? start_neighbor_alltoallv : start_alltoallv)(call, sendbuf, sc.get(), sd.get(), st.h,
                                                                     recvbuf, rc.get(), rd.get(), rt.h, comm);
    };
  });
}

template <class M, class C, class D>
int alltoallw_form(const M& m, const void* sendbuf, const C* sendcounts, const D* sdispls,
                   const MPI_Datatype* sendtypes, void* recvbuf, const C* recvcounts, const D* rdispls,
                   const MPI_Datatype* recvtypes) {
  return m([&] {
    const size_t ns = send_n(m.comm, sendbuf), nr = all_n(m.comm);
    auto sc = counts_c(m.call, sendcounts, ns, "sendcounts");
    auto sd = displs_c(m.call, sdispls, ns, "sdispls");
    auto st = m.types(sendtypes, ns);
    auto rc = counts_c(m.call, recvcounts, nr, "recvcounts");
    auto rd = displs_c(m.call, rdispls, nr, "rdispls");
    auto rt = m.types(recvtypes, nr);
    return [=, sc = std::move(sc), sd = std::move(sd), st = std::move(st), rc = std::move(rc), rd = std::move(rd),
            rt = std::move(rt), call = m.call, comm = m.comm] {
      return start_alltoallw(call, sendbuf, sc.get(), sd.get(), st.get(), recvbuf, rc.get(), rd.get(), rt.get(),
                             comm);
    };
  });
}

// Byte displacements (MPI_Aint in both forms): used as given, copied by a persistent request.
template <class M, class C>
int neighbor_alltoallw_form(const M& m, const void* sendbuf, const C* sendcounts, const MPI_Aint* sdispls,
                            const MPI_Datatype* sendtypes, void* recvbuf, const C* recvcounts,
                            const MPI_Aint* rdispls, const MPI_Datatype* recvtypes) {
  return m([&] {
    const size_t ns = out_n(m.call, m.comm);
    auto sc = counts_c(m.call, sendcounts, ns, "sendcounts");
    auto sd = m.hold(sdispls, ns);
    auto st = m.types(sendtypes, ns);
    const size_t nr = in_n(m.call, m.comm);
    auto rc = counts_c(m.call, recvcounts, nr, "recvcounts");
    auto rd = m.hold(rdispls, nr);
    auto rt = m.types(recvtypes, nr);
    return [=, sc = std::move(sc), sd = std::move(sd), st = std::move(st), rc = std::move(rc), rd = std::move(rd),
            rt = std::move(rt), call = m.call, comm = m.comm] {
      return start_neighbor_alltoallw(call, sendbuf, sc.get(), sd.get(), st.get(), recvbuf, rc.get(), rd.get(),
                                      rt.get(), comm);
    };
  });
}

template <class M, class C>
int reduce_scatter_form(const M& m, const void* sendbuf, void* recvbuf, const C* recvcounts, MPI_Datatype datatype,
                        MPI_Op op) {
  return m([&] {
    auto rc = counts_c(m.call, recvcounts, local_n(m.comm), "recvcounts");
    return [=, rc = std::move(rc), t = m.type(datatype), call = m.call, comm = m.comm] {
      return start_reduce_scatter(call, sendbuf, recvbuf, rc.get(), t.h, op, comm);
    };
  });
}

template <class M, class C>
int reduce_scatter_block_form(const M& m, const void* sendbuf, void* recvbuf, C recvcount, MPI_Datatype datatype,
                              MPI_Op op) {
  return m([&] {
    const int rc = count_c(m.call, recvcount, "recvcount");
    return [=, t = m.type(datatype), call = m.call, comm = m.comm] {
      return start_reduce_scatter_block(call, sendbuf, recvbuf, rc, t.h, op, comm);
    };
  });
}

}  // namespace interlace::mpi::collimpl
