// Internal: intercommunicators. An intercommunicator is a CommObj whose `comm` addresses
// the remote group (so p2p works unchanged) plus an InterState (mpi_impl.hpp): the two
// groups' world ranks, an intracommunicator of the local group and a second channel
// between the groups for collective traffic, so collectives never meet user messages.
//   mpi_inter.cpp       creation (Intercomm_create[_from_groups], merge), the leaders'
//                       exchange every collective creation uses, remote size/group
//   mpi_inter_comm.cpp  dup, split, create, compare, free, group of an intercommunicator
//   mpi_inter_coll.cpp  the collectives with MPI's intercommunicator semantics
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "interlace/groups/comm_state.hpp"
#include "mpi_coll_impl.hpp"
#include "mpi_impl.hpp"

namespace interlace::mpi::inter {

// ---- mpi_inter.cpp ----
// The internal tag of one step of a communicator creation that runs over an existing
// communicator, below the models' tags (user receives never match it) and folded with
// the user's tag or string tag hash `h`, so creations that differ in it do not cross
// (tags equal modulo 4096 share one). Kinds: 0-3 intercommunicators (mpi_inter.cpp),
// 5 MPI_Comm_create_group, 6 MPI_Comm_create_from_group (mpi_comm_ext.cpp).
int creation_tag(int kind, uint64_t h);
// FNV-1a of a string tag or host name: the same value on every rank.
uint64_t hash64(const std::string& s);
// Ids for the three communicators of a new intercommunicator, made by a local leader.
struct Ids {
  uint64_t p2p = 0, coll = 0, local = 0;
};
Ids fresh_ids();
// The same on the runtime of `w` (the world's, or a spawn connection's).
Ids fresh_ids(const std::shared_ptr<groups::CommState>& w);
// Makes the intercommunicator handle between `local` (holding this rank) and `remote`
// (world ranks in group order); p2p/coll ids agreed by both groups, local by this one.
MPI_Comm make(std::vector<int> local, std::vector<int> remote, const Ids& ids, MPI_Errhandler eh);
// The same on the runtime of `w` (its ranks are those of that runtime's job): spawn.
MPI_Comm make_on(const std::shared_ptr<groups::CommState>& w, std::vector<int> local, std::vector<int> remote,
                 const Ids& ids, MPI_Errhandler eh);
// Over an existing intercommunicator: the leaders (local rank 0) swap `mine` (only the
// leader's is used) and hand both to their group. Collective over both groups.
struct Swapped {
  std::vector<int64_t> mine, theirs;
};
Swapped swap_leaders(const CommObj& o, const std::vector<int64_t>& mine);
// The p2p/coll ids both groups use: those of the side whose representative world rank
// (its leader, or its new group's first member) is lower; `local` stays this side's.
Ids agreed(int my_world, int their_world, const Ids& mine, const Ids& theirs);
std::vector<int64_t> to_vec(const Ids& ids);
Ids ids_at(const std::vector<int64_t>& v, size_t at);

// ---- mpi_inter_comm.cpp (called by mpi_comm.cpp for intercommunicators) ----
MPI_Comm dup(CommObj& o);
MPI_Comm split(CommObj& o, int color, int key);
MPI_Comm create(CommObj& o, MPI_Comm comm, const std::vector<int>& group);
void release(MPI_Comm handle, CommObj& o);  // MPI_Comm_free

// ---- mpi_inter_coll.cpp (called by the start_* functions of mpi_coll_*.cpp) ----
// Each runs the whole collective before it returns (non-blocking forms on an
// intercommunicator complete at the start) and gives a Pending already complete.
using collimpl::Pending;
Pending barrier(const char* call, MPI_Comm comm);
Pending bcast(const char* call, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
// kind: reduce or allreduce (scan and exscan are not defined on intercommunicators).
Pending reduce(const char* call, coll::Kind kind, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
Pending reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int* recvcounts,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Pending reduce_scatter_block(const char* call, const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Pending gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Pending gatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm);
Pending scatter(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Pending scatterv(const char* call, const void* sendbuf, const int* sendcounts, const int* displs,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
Pending allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm);
Pending alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Pending alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm);
// For helper coll's MPI_Alltoallw / Ialltoallw (byte displacements, a type per peer).
Pending alltoallw(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                  const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                  const MPI_Datatype* recvtypes, MPI_Comm comm);

}  // namespace interlace::mpi::inter
