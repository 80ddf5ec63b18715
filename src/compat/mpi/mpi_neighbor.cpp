// The neighbour collectives on a communicator with a process topology: block i of the
// receive buffer comes from the i-th source, block j of the send buffer goes to the
// j-th destination (mpi_topo.hpp: neighbourhood_of gives both lists and the order in
// which receives are posted). MPI_PROC_NULL neighbours leave their block untouched.
#include <cstdint>

#include "mpi_coll_exchange.hpp"
#include "mpi_topo.hpp"

namespace interlace::mpi::collimpl {

namespace {

void no_in_place(const Ctx& k, const void* sendbuf) {
  if (sendbuf == MPI_IN_PLACE)
    raise(MPI_ERR_BUFFER, std::string(k.call) + ": MPI_IN_PLACE is not allowed in neighbour collectives");
}

void need_array(const Ctx& k, const void* a, const char* name, size_t n) {
  if (n > 0 && !a) raise(MPI_ERR_ARG, std::string(k.call) + ": " + name + " is null");
}

// Integer arithmetic: buf may be MPI_BOTTOM (null) with absolute addresses as displacements.
const void* at(const void* buf, std::ptrdiff_t bytes) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(bytes));
}

// Byte offset of `n` elements of type t (t must be valid unless n is 0).
std::ptrdiff_t elems(MPI_Datatype t, long long n) {
  return n == 0 ? 0 : static_cast<std::ptrdiff_t>(n * type_obj(t).extent);
}

struct Setup {
  Ctx k;
  const Neighbourhood& nb;
};

Setup setup(const char* call, MPI_Comm comm, const void* sendbuf) {
  const Ctx k = open(call, comm);
  no_in_place(k, sendbuf);
  return Setup{k, neighbourhood_of(call, comm)};
}

}  // namespace

Pending start_neighbor_allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Setup s = setup(call, comm, sendbuf);
  check_nonneg(s.k, sendcount, "sendcount");
  check_nonneg(s.k, recvcount, "recvcount");
  std::vector<Part> sends, recvs;
  for (int d : s.nb.dests) sends.push_back(Part{d, sendbuf, sendcount, sendtype});
  for (size_t i = 0; i < s.nb.sources.size(); ++i)
    recvs.push_back(Part{s.nb.sources[i], at(recvbuf, elems(recvtype, static_cast<long long>(i) * recvcount)),
                         recvcount, recvtype});
  return run_exchange(s.k, "neighbor_allgather", sends, recvs, s.nb.recv_order);
}

Pending start_neighbor_allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                                  MPI_Comm comm) {
  Setup s = setup(call, comm, sendbuf);
  check_nonneg(s.k, sendcount, "sendcount");
  need_array(s.k, recvcounts, "recvcounts", s.nb.sources.size());
  need_array(s.k, displs, "displs", s.nb.sources.size());
  std::vector<Part> sends, recvs;
  for (int d : s.nb.dests) sends.push_back(Part{d, sendbuf, sendcount, sendtype});
  for (size_t i = 0; i < s.nb.sources.size(); ++i)
    recvs.push_back(Part{s.nb.sources[i], at(recvbuf, elems(recvtype, displs[i])), recvcounts[i], recvtype});
  return run_exchange(s.k, "neighbor_allgatherv", sends, recvs, s.nb.recv_order);
}

Pending start_neighbor_alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Setup s = setup(call, comm, sendbuf);
  check_nonneg(s.k, sendcount, "sendcount");
  check_nonneg(s.k, recvcount, "recvcount");
  std::vector<Part> sends, recvs;
  for (size_t j = 0; j < s.nb.dests.size(); ++j)
    sends.push_back(Part{s.nb.dests[j], at(sendbuf, elems(sendtype, static_cast<long long>(j) * sendcount)),
                         sendcount, sendtype});
  for (size_t i = 0; i < s.nb.sources.size(); ++i)
    recvs.push_back(Part{s.nb.sources[i], at(recvbuf, elems(recvtype, static_cast<long long>(i) * recvcount)),
                         recvcount, recvtype});
  return run_exchange(s.k, "neighbor_alltoall", sends, recvs, s.nb.recv_order);
}

Pending start_neighbor_alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                                 MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                                 MPI_Datatype recvtype, MPI_Comm comm) {
  Setup s = setup(call, comm, sendbuf);
  need_array(s.k, sendcounts, "sendcounts", s.nb.dests.size());
  need_array(s.k, sdispls, "sdispls", s.nb.dests.size());
  need_array(s.k, recvcounts, "recvcounts", s.nb.sources.size());
  need_array(s.k, rdispls, "rdispls", s.nb.sources.size());
  std::vector<Part> sends, recvs;
  for (size_t j = 0; j < s.nb.dests.size(); ++j)
    sends.push_back(Part{s.nb.dests[j], at(sendbuf, elems(sendtype, sdispls[j])), sendcounts[j], sendtype});
  for (size_t i = 0; i < s.nb.sources.size(); ++i)
    recvs.push_back(Part{s.nb.sources[i], at(recvbuf, elems(recvtype, rdispls[i])), recvcounts[i], recvtype});
  return run_exchange(s.k, "neighbor_alltoallv", sends, recvs, s.nb.recv_order);
}

Pending start_neighbor_alltoallw(const char* call, const void* sendbuf, const int* sendcounts,
                                 const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                                 const int* recvcounts, const MPI_Aint* rdispls, const MPI_Datatype* recvtypes,
                                 MPI_Comm comm) {
  Setup s = setup(call, comm, sendbuf);
  need_array(s.k, sendcounts, "sendcounts", s.nb.dests.size());
  need_array(s.k, sdispls, "sdispls", s.nb.dests.size());
  need_array(s.k, sendtypes, "sendtypes", s.nb.dests.size());
  need_array(s.k, recvcounts, "recvcounts", s.nb.sources.size());
  need_array(s.k, rdispls, "rdispls", s.nb.sources.size());
  need_array(s.k, recvtypes, "recvtypes", s.nb.sources.size());
  std::vector<Part> sends, recvs;
  for (size_t j = 0; j < s.nb.dests.size(); ++j)
    sends.push_back(Part{s.nb.dests[j], at(sendbuf, sdispls[j]), sendcounts[j], sendtypes[j]});
  for (size_t i = 0; i < s.nb.sources.size(); ++i)
    recvs.push_back(Part{s.nb.sources[i], at(recvbuf, rdispls[i]), recvcounts[i], recvtypes[i]});
  return run_exchange(s.k, "neighbor_alltoallw", sends, recvs, s.nb.recv_order);
}

}  // namespace interlace::mpi::collimpl
