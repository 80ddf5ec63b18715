// Process topologies: where a communicator keeps its topology, MPI_Topo_test and the
// Cartesian calls (MPI_Cart_*, MPI_Cartdim_get); MPI_Dims_create is in mpi_topo_dims.cpp,
// graph and distributed graph topologies in mpi_topo_graph.cpp. Reordering is allowed,
// not required, by MPI: interlace keeps every rank where it is (reorder is ignored).
#include <algorithm>
#include <climits>

#include "mpi_attr.hpp"
#include "mpi_topo.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace interlace::mpi {

namespace {

int topology_keyval() {
  // Shared, not copied: a topology never changes after it is made.
  static const int kv = attr_internal_keyval(AttrKind::comm, [](const std::shared_ptr<void>& v) { return v; });
  return kv;
}

const char* kind_name(int kind) {
  switch (kind) {
    case MPI_CART: return "a Cartesian topology";
    case MPI_GRAPH: return "a graph topology";
    case MPI_DIST_GRAPH: return "a distributed graph topology";
    default: return "no topology";
  }
}

}  // namespace

std::shared_ptr<const Topology> topology_of(MPI_Comm comm) {
  comm_obj(comm);
  return std::static_pointer_cast<const Topology>(attr_get_internal(AttrKind::comm, comm, topology_keyval()));
}

const Topology& require_topology(const char* call, MPI_Comm comm, int kind) {
  std::shared_ptr<const Topology> t = topology_of(comm);
  if (!t || (kind != MPI_UNDEFINED && t->kind != kind))
    raise(MPI_ERR_TOPOLOGY, std::string(call) + ": communicator " + std::to_string(comm) + " has " +
                                kind_name(t ? t->kind : MPI_UNDEFINED) + ", not " +
                                (kind == MPI_UNDEFINED ? "a process topology" : kind_name(kind)));
  // The attribute keeps the object alive as long as the communicator exists.
  return *t;
}

void set_topology(MPI_Comm comm, std::shared_ptr<Topology> t) {
  t->nb = make_neighbourhood(*t, comm_of(comm).rank());
  attr_set_internal(AttrKind::comm, comm, topology_keyval(), std::move(t));
}

void require_intra(const char* call, MPI_Comm comm) {
  int inter = 0;
  // Through the public call: the intercommunicator state belongs to mpi_comm.cpp.
  if (MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter)
    raise(MPI_ERR_COMM, std::string(call) + ": communicator " + std::to_string(comm) +
                            " is an intercommunicator; process topologies need an intracommunicator");
}

std::vector<int> cart_coords(const Topology& t, int rank) {
  std::vector<int> c(t.dims.size());
  for (size_t i = t.dims.size(); i-- > 0;) {
    c[i] = rank % t.dims[i];
    rank /= t.dims[i];
  }
  return c;
}

namespace {

int cart_rank_of(const Topology& t, const std::vector<int>& c) {
  int r = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) r = r * t.dims[i] + c[i];
  return r;
}

}  // namespace

void cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest) {
  const std::vector<int> me = cart_coords(t, rank);
  const int n = t.dims[direction];
  auto at = [&](long long pos) {
    if (t.periods[direction]) pos = ((pos % n) + n) % n;
    else if (pos < 0 || pos >= n) return MPI_PROC_NULL;
    std::vector<int> c = me;
    c[direction] = static_cast<int>(pos);
    return cart_rank_of(t, c);
  };
  *source = at(static_cast<long long>(me[direction]) - disp);
  *dest = at(static_cast<long long>(me[direction]) + disp);
}

}  // namespace interlace::mpi

namespace {

// Checks ndims and dims of a Cartesian grid; returns the number of processes it has.
long long check_grid(const char* call, int ndims, const int* dims, const int* periods) {
  if (ndims < 0) raise(MPI_ERR_DIMS, std::string(call) + ": ndims " + std::to_string(ndims) + " is negative");
  if (ndims > 0) {
    need(dims, call, "dims");
    need(periods, call, "periods");
  }
  long long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      raise(MPI_ERR_DIMS, std::string(call) + ": dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) +
                              " is not positive");
    n *= dims[i];
    if (n > INT_MAX) raise(MPI_ERR_DIMS, std::string(call) + ": the grid has more processes than an int counts");
  }
  return n;
}

}  // namespace

extern "C" {

int il_mpi_weight_sentinels[2] = {0, 0};

int MPI_Topo_test(MPI_Comm comm, int* status) {
  return guard("MPI_Topo_test", comm, [&] {
    require_initialized("MPI_Topo_test");
    need(status, "MPI_Topo_test", "status");
    std::shared_ptr<const Topology> t = topology_of(comm);
    *status = t ? t->kind : MPI_UNDEFINED;
  });
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  const char* call = "MPI_Cart_create";
  return guard(call, comm_old, [&] {
    require_initialized(call);
    need(comm_cart, call, "comm_cart");
    (void)reorder;
    CommObj& parent = comm_obj(comm_old);
    require_intra(call, comm_old);
    const long long n = check_grid(call, ndims, dims, periods);
    if (n > parent.comm.size())
      raise(MPI_ERR_TOPOLOGY, std::string(call) + ": the grid has " + std::to_string(n) +
                                  " processes, more than the " + std::to_string(parent.comm.size()) +
                                  " of communicator " + std::to_string(comm_old));
    auto t = std::make_shared<Topology>();
    t->kind = MPI_CART;
    t->dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) t->periods.push_back(periods[i] ? 1 : 0);
    const int rank = parent.comm.rank();
    const MPI_Errhandler eh = parent.errhandler;
    Communicator c = parent.comm.split(rank < n ? 0 : UNDEFINED, rank);
    if (c.is_null()) {
      *comm_cart = MPI_COMM_NULL;
      return;
    }
    *comm_cart = new_comm(std::move(c), eh);
    set_topology(*comm_cart, std::move(t));
  });
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return guard("MPI_Cartdim_get", comm, [&] {
    require_initialized("MPI_Cartdim_get");
    need(ndims, "MPI_Cartdim_get", "ndims");
    *ndims = static_cast<int>(require_topology("MPI_Cartdim_get", comm, MPI_CART).dims.size());
  });
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* call = "MPI_Cart_get";
  return guard(call, comm, [&] {
    require_initialized(call);
    const Topology& t = require_topology(call, comm, MPI_CART);
    if (maxdims < 0) raise(MPI_ERR_ARG, std::string(call) + ": maxdims " + std::to_string(maxdims) + " is negative");
    const int n = std::min<int>(maxdims, static_cast<int>(t.dims.size()));
    if (n > 0) {
      need(dims, call, "dims");
      need(periods, call, "periods");
      need(coords, call, "coords");
    }
    const std::vector<int> c = cart_coords(t, comm_of(comm).rank());
    for (int i = 0; i < n; ++i) {
      dims[i] = t.dims[i];
      periods[i] = t.periods[i];
      coords[i] = c[i];
    }
  });
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* call = "MPI_Cart_rank";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(rank, call, "rank");
    const Topology& t = require_topology(call, comm, MPI_CART);
    if (!t.dims.empty()) need(coords, call, "coords");
    std::vector<int> c(t.dims.size());
    for (size_t i = 0; i < t.dims.size(); ++i) {
      int v = coords[i];
      if (t.periods[i]) {
        v = ((v % t.dims[i]) + t.dims[i]) % t.dims[i];
      } else if (v < 0 || v >= t.dims[i]) {
        raise(MPI_ERR_ARG, std::string(call) + ": coords[" + std::to_string(i) + "] = " + std::to_string(v) +
                               " is outside the non-periodic dimension of extent " + std::to_string(t.dims[i]));
      }
      c[i] = v;
    }
    *rank = cart_rank_of(t, c);
  });
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* call = "MPI_Cart_coords";
  return guard(call, comm, [&] {
    require_initialized(call);
    const Topology& t = require_topology(call, comm, MPI_CART);
    const int size = comm_of(comm).size();
    if (rank < 0 || rank >= size)
      raise(MPI_ERR_RANK, std::string(call) + ": rank " + std::to_string(rank) +
                              " is not a rank of a communicator of size " + std::to_string(size));
    if (maxdims < static_cast<int>(t.dims.size()))
      raise(MPI_ERR_ARG, std::string(call) + ": maxdims " + std::to_string(maxdims) + " is less than the " +
                             std::to_string(t.dims.size()) + " dimensions of the topology");
    if (!t.dims.empty()) need(coords, call, "coords");
    const std::vector<int> c = cart_coords(t, rank);
    std::copy(c.begin(), c.end(), coords);
  });
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* call = "MPI_Cart_shift";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(rank_source, call, "rank_source");
    need(rank_dest, call, "rank_dest");
    const Topology& t = require_topology(call, comm, MPI_CART);
    if (direction < 0 || direction >= static_cast<int>(t.dims.size()))
      raise(MPI_ERR_DIMS, std::string(call) + ": direction " + std::to_string(direction) +
                              " is not a dimension of a topology with " + std::to_string(t.dims.size()) +
                              " dimensions");
    cart_shift(t, comm_of(comm).rank(), direction, disp, rank_source, rank_dest);
  });
}

// The ranks that share the coordinates of the dropped dimensions form one
// subcommunicator (color: those coordinates, row-major); the rank order is kept.
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* call = "MPI_Cart_sub";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    const Topology& t = require_topology(call, comm, MPI_CART);
    if (!t.dims.empty()) need(remain_dims, call, "remain_dims");
    CommObj& parent = comm_obj(comm);
    const std::vector<int> c = cart_coords(t, parent.comm.rank());
    auto sub = std::make_shared<Topology>();
    sub->kind = MPI_CART;
    int color = 0;
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (remain_dims[i]) {
        sub->dims.push_back(t.dims[i]);
        sub->periods.push_back(t.periods[i]);
      } else {
        color = color * t.dims[i] + c[i];
      }
    }
    const MPI_Errhandler eh = parent.errhandler;
    *newcomm = new_comm(parent.comm.split(color, parent.comm.rank()), eh);
    set_topology(*newcomm, std::move(sub));
  });
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* call = "MPI_Cart_map";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newrank, call, "newrank");
    const Communicator& c = comm_of(comm);
    const long long n = check_grid(call, ndims, dims, periods);
    if (n > c.size())
      raise(MPI_ERR_TOPOLOGY, std::string(call) + ": the grid has " + std::to_string(n) +
                                  " processes, more than the " + std::to_string(c.size()) + " of communicator " +
                                  std::to_string(comm));
    *newrank = c.rank() < n ? c.rank() : MPI_UNDEFINED;
  });
}

}  // extern "C"
