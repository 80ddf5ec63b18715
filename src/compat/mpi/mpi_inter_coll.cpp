// Collectives on intercommunicators with MPI's semantics (MPI 4.1 6.2.2): the data of
// one group goes to the other. Rooted ones take MPI_ROOT at the root, MPI_PROC_NULL at
// the rest of the root's group and the root's remote rank in the other group.
// Data crosses between the groups as point-to-point messages on the intercommunicator's
// collective channel (never seen by user receives); reductions reduce inside a group on
// its hidden intracommunicator first, so only the leaders (local rank 0) exchange
// results. Every call finishes before it returns: the non-blocking forms on an
// intercommunicator complete at the start (docs/mpi.md).
#include <numeric>
#include <string>
#include <vector>

#include "mpi_inter.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace interlace::mpi::inter {
namespace {

constexpr int kTag = 0;  // the channel carries only these collectives, in call order

struct Ctx {
  const char* call;
  InterState* is;
  int rank;   // in the local group
  int rsize;  // of the remote group
  MPI_Comm lh;
};

Ctx open(const char* call, MPI_Comm comm) {
  require_initialized(call);
  CommObj& o = comm_obj(comm);
  return Ctx{call, o.inter.get(), o.comm.rank(), static_cast<int>(o.inter->remote.size()), o.inter->local_handle};
}

// A finished Pending: a real (already complete) engine request stands in, so waiting on
// it among other requests (MPI_Waitany...) treats it like any collective request.
Pending done() {
  Pending p;
  p.req = coll::ibarrier(comm_of(MPI_COMM_SELF));
  return p;
}

enum class Role { root, idle, leaf };

Role role_of(const Ctx& c, int root) {
  if (root == MPI_ROOT) return Role::root;
  if (root == MPI_PROC_NULL) return Role::idle;
  if (root < 0 || root >= c.rsize)
    raise(MPI_ERR_ROOT, std::string(c.call) + ": root " + std::to_string(root) +
                            " is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group (size " +
                            std::to_string(c.rsize) + ")");
  return Role::leaf;
}

char* at(const void* buf, MPI_Aint elements, MPI_Datatype t) {
  return static_cast<char*>(const_cast<void*>(buf)) + elements * type_obj(t).extent;
}

// Typed messages on the channel; wait() completes them all (receives unpack).
struct Traffic {
  const Communicator* ch;
  std::vector<Request> sends, recvs;
  std::vector<Packed> packed;
  std::vector<Unpacked> unpacked;

  void send(const void* buf, int count, MPI_Datatype t, int dest, const char* what) {
    check_count(count, what);
    Packed p = pack_view(buf, count, type_obj(t));
    sends.push_back(ch->isend(p.data, p.bytes, Datatype::bytes, dest, kTag));
    packed.push_back(std::move(p));
  }
  void recv(void* buf, int count, MPI_Datatype t, int source, const char* what) {
    check_count(count, what);
    Unpacked u = unpack_view(buf, count, type_obj(t));
    recvs.push_back(ch->irecv(u.data, u.bytes, Datatype::bytes, source, kTag));
    unpacked.push_back(std::move(u));
  }
  void wait() {
    for (size_t i = 0; i < recvs.size(); ++i) unpacked[i].finish(recvs[i].wait().bytes);
    for (Request& r : sends) r.wait();
  }
};

Traffic traffic(const Ctx& c) { return Traffic{&c.is->coll, {}, {}, {}, {}}; }

// Room for `count` elements of t (its true extent), addressed like a user buffer.
struct Tmp {
  std::vector<std::byte> mem;
  void* base = nullptr;
};
Tmp tmp_of(MPI_Datatype t, int count) {
  const TypeObj& o = type_obj(t);
  const MPI_Aint span = count > 0 ? (count - 1) * o.extent + o.true_extent : 0;
  Tmp x;
  x.mem.resize(static_cast<size_t>(span > 0 ? span : 1));
  x.base = x.mem.data() - o.true_lb;
  return x;
}

// The reduction of the local group's sendbufs, held at the local leader.
Tmp reduce_local(const Ctx& c, const void* sendbuf, int count, MPI_Datatype type, MPI_Op op) {
  Tmp t = tmp_of(type, count);
  collimpl::complete(collimpl::start_reduce(c.call, coll::Kind::reduce, sendbuf, t.base, count, type, op, 0, c.lh));
  return t;
}

// The leaders swap their group's reductions: ours goes out, theirs lands in `into`.
void leaders_swap(const Ctx& c, const void* ours, void* into, int count, MPI_Datatype type) {
  if (c.rank != 0) return;
  Traffic t = traffic(c);
  t.recv(into, count, type, 0, "count");
  t.send(ours, count, type, 0, "count");
  t.wait();
}

}  // namespace

Pending barrier(const char* call, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  collimpl::complete(collimpl::start_barrier(call, c.lh));  // all of this group entered
  if (c.rank == 0) {
    char none = 0;
    c.is->coll.sendrecv(&none, 0, Datatype::bytes, 0, kTag, &none, 0, Datatype::bytes, 0, kTag);
  }
  collimpl::complete(collimpl::start_barrier(call, c.lh));  // ... and so did the other
  return done();
}

Pending bcast(const char* call, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const Role r = role_of(c, root);
  if (r == Role::root) {
    Traffic t = traffic(c);
    t.send(buf, count, type, 0, "count");
    t.wait();
  } else if (r == Role::leaf) {
    if (c.rank == 0) {
      Traffic t = traffic(c);
      t.recv(buf, count, type, root, "count");
      t.wait();
    }
    collimpl::complete(collimpl::start_bcast(call, buf, count, type, 0, c.lh));
  }
  return done();
}

Pending reduce(const char* call, coll::Kind kind, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  if (kind != coll::Kind::reduce && kind != coll::Kind::allreduce)
    raise(MPI_ERR_COMM, std::string(call) + ": not defined on an intercommunicator (communicator " +
                            std::to_string(comm) + ")");
  if (kind == coll::Kind::allreduce) {
    Tmp ours = reduce_local(c, sendbuf, count, type, op);
    leaders_swap(c, ours.base, recvbuf, count, type);
    collimpl::complete(collimpl::start_bcast(call, recvbuf, count, type, 0, c.lh));
    return done();
  }
  const Role r = role_of(c, root);
  if (r == Role::root) {
    Traffic t = traffic(c);
    t.recv(recvbuf, count, type, 0, "count");
    t.wait();
  } else if (r == Role::leaf) {
    Tmp ours = reduce_local(c, sendbuf, count, type, op);
    if (c.rank == 0) {
      Traffic t = traffic(c);
      t.send(ours.base, count, type, root, "count");
      t.wait();
    }
  }
  return done();
}

// MPI: group A's vectors (sum of A's recvcounts elements) are reduced and scattered over
// group B by B's recvcounts, and the other way round; both sums must agree.
Pending reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int* recvcounts,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const int n = local_size_of(comm);
  if (!recvcounts) raise(MPI_ERR_ARG, std::string(call) + ": recvcounts is null");
  std::vector<int> displs(n);
  int total = 0;
  for (int i = 0; i < n; ++i) {
    check_count(recvcounts[i], "recvcounts[i]");
    displs[i] = total;
    total += recvcounts[i];
  }
  Tmp ours = reduce_local(c, sendbuf, total, type, op);
  Tmp theirs = tmp_of(type, total);
  leaders_swap(c, ours.base, theirs.base, total, type);
  collimpl::complete(collimpl::start_scatterv(call, theirs.base, recvcounts, displs.data(), type, recvbuf,
                                              recvcounts[c.rank], type, 0, c.lh));
  return done();
}

Pending reduce_scatter_block(const char* call, const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  check_count(recvcount, "recvcount");
  const int total = recvcount * local_size_of(comm);
  Tmp ours = reduce_local(c, sendbuf, total, type, op);
  Tmp theirs = tmp_of(type, total);
  leaders_swap(c, ours.base, theirs.base, total, type);
  collimpl::complete(collimpl::start_scatter(call, theirs.base, recvcount, type, recvbuf, recvcount, type, 0, c.lh));
  return done();
}

Pending gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const Role r = role_of(c, root);
  Traffic t = traffic(c);
  if (r == Role::root)
    for (int p = 0; p < c.rsize; ++p)
      t.recv(at(recvbuf, static_cast<MPI_Aint>(p) * recvcount, recvtype), recvcount, recvtype, p, "recvcount");
  else if (r == Role::leaf)
    t.send(sendbuf, sendcount, sendtype, root, "sendcount");
  t.wait();
  return done();
}

Pending gatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const Role r = role_of(c, root);
  Traffic t = traffic(c);
  if (r == Role::root) {
    if (!recvcounts || !displs) raise(MPI_ERR_ARG, std::string(call) + ": recvcounts or displs is null");
    for (int p = 0; p < c.rsize; ++p) t.recv(at(recvbuf, displs[p], recvtype), recvcounts[p], recvtype, p, "recvcounts[i]");
  } else if (r == Role::leaf) {
    t.send(sendbuf, sendcount, sendtype, root, "sendcount");
  }
  t.wait();
  return done();
}

Pending scatter(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const Role r = role_of(c, root);
  Traffic t = traffic(c);
  if (r == Role::root)
    for (int p = 0; p < c.rsize; ++p)
      t.send(at(sendbuf, static_cast<MPI_Aint>(p) * sendcount, sendtype), sendcount, sendtype, p, "sendcount");
  else if (r == Role::leaf)
    t.recv(recvbuf, recvcount, recvtype, root, "recvcount");
  t.wait();
  return done();
}

Pending scatterv(const char* call, const void* sendbuf, const int* sendcounts, const int* displs,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  const Ctx c = open(call, comm);
  const Role r = role_of(c, root);
  Traffic t = traffic(c);
  if (r == Role::root) {
    if (!sendcounts || !displs) raise(MPI_ERR_ARG, std::string(call) + ": sendcounts or displs is null");
    for (int p = 0; p < c.rsize; ++p) t.send(at(sendbuf, displs[p], sendtype), sendcounts[p], sendtype, p, "sendcounts[i]");
  } else if (r == Role::leaf) {
    t.recv(recvbuf, recvcount, recvtype, root, "recvcount");
  }
  t.wait();
  return done();
}

Pending allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  Traffic t = traffic(c);
  for (int p = 0; p < c.rsize; ++p) {
    t.recv(at(recvbuf, static_cast<MPI_Aint>(p) * recvcount, recvtype), recvcount, recvtype, p, "recvcount");
    t.send(sendbuf, sendcount, sendtype, p, "sendcount");
  }
  t.wait();
  return done();
}

Pending allgatherv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  if (!recvcounts || !displs) raise(MPI_ERR_ARG, std::string(call) + ": recvcounts or displs is null");
  Traffic t = traffic(c);
  for (int p = 0; p < c.rsize; ++p) {
    t.recv(at(recvbuf, displs[p], recvtype), recvcounts[p], recvtype, p, "recvcounts[i]");
    t.send(sendbuf, sendcount, sendtype, p, "sendcount");
  }
  t.wait();
  return done();
}

Pending alltoall(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  Traffic t = traffic(c);
  for (int p = 0; p < c.rsize; ++p) {
    t.recv(at(recvbuf, static_cast<MPI_Aint>(p) * recvcount, recvtype), recvcount, recvtype, p, "recvcount");
    t.send(at(sendbuf, static_cast<MPI_Aint>(p) * sendcount, sendtype), sendcount, sendtype, p, "sendcount");
  }
  t.wait();
  return done();
}

Pending alltoallv(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  if (!sendcounts || !sdispls || !recvcounts || !rdispls)
    raise(MPI_ERR_ARG, std::string(call) + ": a count or displacement array is null");
  Traffic t = traffic(c);
  for (int p = 0; p < c.rsize; ++p) {
    t.recv(at(recvbuf, rdispls[p], recvtype), recvcounts[p], recvtype, p, "recvcounts[i]");
    t.send(at(sendbuf, sdispls[p], sendtype), sendcounts[p], sendtype, p, "sendcounts[i]");
  }
  t.wait();
  return done();
}

Pending alltoallw(const char* call, const void* sendbuf, const int* sendcounts, const int* sdispls,
                  const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                  const MPI_Datatype* recvtypes, MPI_Comm comm) {
  const Ctx c = open(call, comm);
  if (!sendcounts || !sdispls || !sendtypes || !recvcounts || !rdispls || !recvtypes)
    raise(MPI_ERR_ARG, std::string(call) + ": a count, displacement or type array is null");
  Traffic t = traffic(c);
  for (int p = 0; p < c.rsize; ++p) {  // displacements are in bytes
    t.recv(static_cast<char*>(recvbuf) + rdispls[p], recvcounts[p], recvtypes[p], p, "recvcounts[i]");
    t.send(static_cast<const char*>(sendbuf) + sdispls[p], sendcounts[p], sendtypes[p], p, "sendcounts[i]");
  }
  t.wait();
  return done();
}

}  // namespace interlace::mpi::inter
