// Internal: the process topology a communicator carries (MPI_Cart_create,
// MPI_Graph_create, MPI_Dist_graph_create*), kept as an internal attribute
// (mpi_attr.hpp) so MPI_Comm_dup copies it and MPI_Comm_free drops it. Topologies are
// immutable once made, so a duplicate shares the same object.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "mpi_impl.hpp"

namespace interlace::mpi {

// The neighbourhood of this rank for the neighbour collectives: receive block i comes
// from sources[i], send block j goes to dests[j] (MPI_PROC_NULL: no transfer, block
// untouched). Messages between a pair of ranks match in the order they are posted, so
// receives are posted in recv_order: for a Cartesian dimension of size 1 or 2 whose
// -1 and +1 neighbours are the same rank, what a rank sends towards -1 must land in
// the receiver's +1 block, and the reverse.
struct Neighbourhood {
  std::vector<int> sources, dests;
  std::vector<int> recv_order;
};

struct Topology {
  int kind = MPI_UNDEFINED;          // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  // MPI_CART: extent and periodicity per dimension (row-major rank order).
  std::vector<int> dims, periods;
  // MPI_GRAPH: the whole graph as MPI_Graph_create took it.
  std::vector<int> index, edges;
  // MPI_DIST_GRAPH: this rank's in- and out-neighbours and their weights.
  std::vector<int> sources, source_weights, dests, dest_weights;
  bool weighted = false;
  // This rank's neighbourhood, worked out once by set_topology: topologies are
  // immutable and a duplicate communicator keeps the ranks, so every neighbour
  // collective on it reads the same lists.
  Neighbourhood nb;
};

// The topology of comm, or null when it has none (raises MPI_ERR_COMM for a bad handle).
std::shared_ptr<const Topology> topology_of(MPI_Comm comm);
// The topology of comm, which must be of `kind` (MPI_UNDEFINED: any kind); raises
// MPI_ERR_TOPOLOGY naming the communicator and what it has otherwise.
const Topology& require_topology(const char* call, MPI_Comm comm, int kind);
// Attaches t (fresh, not yet shared) to comm and fills in t->nb for comm's rank.
void set_topology(MPI_Comm comm, std::shared_ptr<Topology> t);
Neighbourhood make_neighbourhood(const Topology& t, int rank);
// Topologies live on intracommunicators: MPI_ERR_COMM naming an intercommunicator.
void require_intra(const char* call, MPI_Comm comm);

// Cartesian helpers: the coordinates of a rank and the neighbours of MPI_Cart_shift.
std::vector<int> cart_coords(const Topology& t, int rank);
void cart_shift(const Topology& t, int rank, int direction, int disp, int* source, int* dest);

// The neighbourhood of comm's topology (MPI_ERR_TOPOLOGY without one); valid while
// comm exists.
const Neighbourhood& neighbourhood_of(const char* call, MPI_Comm comm);

}  // namespace interlace::mpi
