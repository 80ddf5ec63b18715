// Graph (MPI_Graph_*) and distributed graph (MPI_Dist_graph_*) topologies, and the
// neighbourhood the neighbour collectives use for every kind of topology.
#include <algorithm>
#include <climits>

#include "mpi_topo.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace {

std::string at(const char* name, int i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

void check_rank(const char* call, int rank, int size, const std::string& what) {
  if (rank < 0 || rank >= size)
    raise(MPI_ERR_RANK, std::string(call) + ": " + what + " = " + std::to_string(rank) +
                            " is not a rank of a communicator of size " + std::to_string(size));
}

// MPI_Graph_create's arguments: index is non-decreasing from 0, edges name nodes.
void check_graph(const char* call, int nnodes, const int* index, const int* edges, int size) {
  if (nnodes < 0) raise(MPI_ERR_ARG, std::string(call) + ": nnodes " + std::to_string(nnodes) + " is negative");
  if (nnodes > size)
    raise(MPI_ERR_TOPOLOGY, std::string(call) + ": nnodes " + std::to_string(nnodes) +
                                " is more than the communicator's " + std::to_string(size) + " processes");
  if (nnodes == 0) return;
  need(index, call, "index");
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev)
      raise(MPI_ERR_TOPOLOGY, std::string(call) + ": " + at("index", i) + " = " + std::to_string(index[i]) +
                                  " is less than " + (i ? at("index", i - 1) : std::string("0")) + " = " +
                                  std::to_string(prev));
    prev = index[i];
  }
  if (prev > 0) need(edges, call, "edges");
  for (int e = 0; e < prev; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      raise(MPI_ERR_TOPOLOGY, std::string(call) + ": " + at("edges", e) + " = " + std::to_string(edges[e]) +
                                  " is not a node of a graph of " + std::to_string(nnodes) + " nodes");
}

// The neighbours of `rank` in an MPI_GRAPH topology, in edge order.
std::vector<int> graph_neighbours(const Topology& t, int rank) {
  const int lo = rank == 0 ? 0 : t.index[rank - 1];
  return std::vector<int>(t.edges.begin() + lo, t.edges.begin() + t.index[rank]);
}

void check_weights(const char* call, const int* w, int n, const char* name) {
  if (n == 0 || w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY) {
    if (n > 0 && w == MPI_WEIGHTS_EMPTY)
      raise(MPI_ERR_ARG, std::string(call) + ": " + name + " is MPI_WEIGHTS_EMPTY for " + std::to_string(n) +
                             " edges");
    return;
  }
  need(w, call, name);
  for (int i = 0; i < n; ++i)
    if (w[i] < 0)
      raise(MPI_ERR_ARG, std::string(call) + ": " + at(name, i) + " = " + std::to_string(w[i]) + " is negative");
}

bool real_weights(const int* w) { return w != MPI_UNWEIGHTED; }

MPI_Comm attach(CommObj& parent, Communicator c, std::shared_ptr<Topology> t) {
  if (c.is_null()) return MPI_COMM_NULL;
  const MPI_Comm h = new_comm(std::move(c), parent.errhandler);
  set_topology(h, std::move(t));
  return h;
}

}  // namespace

namespace interlace::mpi {

const Neighbourhood& neighbourhood_of(const char* call, MPI_Comm comm) {
  return require_topology(call, comm, MPI_UNDEFINED).nb;
}

Neighbourhood make_neighbourhood(const Topology& t, int rank) {
  Neighbourhood n;
  switch (t.kind) {
    case MPI_CART:
      for (size_t d = 0; d < t.dims.size(); ++d) {
        int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
        cart_shift(t, rank, static_cast<int>(d), 1, &src, &dst);
        n.sources.insert(n.sources.end(), {src, dst});
        // The +1 neighbour's block (it sent towards -1) is posted first: see mpi_topo.hpp.
        n.recv_order.insert(n.recv_order.end(), {static_cast<int>(2 * d + 1), static_cast<int>(2 * d)});
      }
      n.dests = n.sources;
      return n;
    case MPI_GRAPH:
      n.sources = graph_neighbours(t, rank);
      n.dests = n.sources;
      break;
    default:
      n.sources = t.sources;
      n.dests = t.dests;
      break;
  }
  n.recv_order.resize(n.sources.size());
  for (size_t i = 0; i < n.recv_order.size(); ++i) n.recv_order[i] = static_cast<int>(i);
  return n;
}

}  // namespace interlace::mpi

extern "C" {

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  const char* call = "MPI_Graph_create";
  return guard(call, comm_old, [&] {
    require_initialized(call);
    need(comm_graph, call, "comm_graph");
    (void)reorder;
    CommObj& parent = comm_obj(comm_old);
    require_intra(call, comm_old);
    check_graph(call, nnodes, index, edges, parent.comm.size());
    auto t = std::make_shared<Topology>();
    t->kind = MPI_GRAPH;
    if (nnodes > 0) {
      t->index.assign(index, index + nnodes);
      t->edges.assign(edges, edges + index[nnodes - 1]);
    }
    const int rank = parent.comm.rank();
    *comm_graph = attach(parent, parent.comm.split(rank < nnodes ? 0 : UNDEFINED, rank), std::move(t));
  });
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* call = "MPI_Graphdims_get";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(nnodes, call, "nnodes");
    need(nedges, call, "nedges");
    const Topology& t = require_topology(call, comm, MPI_GRAPH);
    *nnodes = static_cast<int>(t.index.size());
    *nedges = static_cast<int>(t.edges.size());
  });
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* call = "MPI_Graph_get";
  return guard(call, comm, [&] {
    require_initialized(call);
    const Topology& t = require_topology(call, comm, MPI_GRAPH);
    if (maxindex < 0 || maxedges < 0)
      raise(MPI_ERR_ARG, std::string(call) + ": maxindex " + std::to_string(maxindex) + " or maxedges " +
                             std::to_string(maxedges) + " is negative");
    const size_t ni = std::min<size_t>(maxindex, t.index.size()), ne = std::min<size_t>(maxedges, t.edges.size());
    if (ni) need(index, call, "index");
    if (ne) need(edges, call, "edges");
    std::copy_n(t.index.begin(), ni, index);
    std::copy_n(t.edges.begin(), ne, edges);
  });
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* call = "MPI_Graph_neighbors_count";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(nneighbors, call, "nneighbors");
    const Topology& t = require_topology(call, comm, MPI_GRAPH);
    check_rank(call, rank, static_cast<int>(t.index.size()), "rank");
    *nneighbors = static_cast<int>(graph_neighbours(t, rank).size());
  });
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* call = "MPI_Graph_neighbors";
  return guard(call, comm, [&] {
    require_initialized(call);
    const Topology& t = require_topology(call, comm, MPI_GRAPH);
    check_rank(call, rank, static_cast<int>(t.index.size()), "rank");
    if (maxneighbors < 0)
      raise(MPI_ERR_ARG, std::string(call) + ": maxneighbors " + std::to_string(maxneighbors) + " is negative");
    const std::vector<int> nb = graph_neighbours(t, rank);
    const size_t n = std::min<size_t>(maxneighbors, nb.size());
    if (n) need(neighbors, call, "neighbors");
    std::copy_n(nb.begin(), n, neighbors);
  });
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* call = "MPI_Graph_map";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newrank, call, "newrank");
    const Communicator& c = comm_of(comm);
    check_graph(call, nnodes, index, edges, c.size());
    *newrank = c.rank() < nnodes ? c.rank() : MPI_UNDEFINED;
  });
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  return guard(call, comm_old, [&] {
    require_initialized(call);
    need(comm_dist_graph, call, "comm_dist_graph");
    (void)info;
    (void)reorder;
    CommObj& parent = comm_obj(comm_old);
    require_intra(call, comm_old);
    const int size = parent.comm.size();
    if (indegree < 0 || outdegree < 0)
      raise(MPI_ERR_ARG, std::string(call) + ": indegree " + std::to_string(indegree) + " or outdegree " +
                             std::to_string(outdegree) + " is negative");
    if (indegree) need(sources, call, "sources");
    if (outdegree) need(destinations, call, "destinations");
    for (int i = 0; i < indegree; ++i) check_rank(call, sources[i], size, at("sources", i));
    for (int i = 0; i < outdegree; ++i) check_rank(call, destinations[i], size, at("destinations", i));
    check_weights(call, sourceweights, indegree, "sourceweights");
    check_weights(call, destweights, outdegree, "destweights");
    auto t = std::make_shared<Topology>();
    t->kind = MPI_DIST_GRAPH;
    t->sources.assign(sources, sources + indegree);
    t->dests.assign(destinations, destinations + outdegree);
    t->weighted = real_weights(sourceweights) && real_weights(destweights);
    if (t->weighted) {
      if (indegree) t->source_weights.assign(sourceweights, sourceweights + indegree);
      if (outdegree) t->dest_weights.assign(destweights, destweights + outdegree);
    }
    *comm_dist_graph = attach(parent, parent.comm.dup(), std::move(t));
  });
}

// Each rank names some edges (source -> destination) anywhere in the graph; every edge
// is sent to both its ends with an all-to-all, so each rank learns its in- and
// out-neighbours, ordered by the rank that named the edge and then by its position.
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create";
  return guard(call, comm_old, [&] {
    require_initialized(call);
    need(comm_dist_graph, call, "comm_dist_graph");
    (void)info;
    (void)reorder;
    CommObj& parent = comm_obj(comm_old);
    require_intra(call, comm_old);
    const Communicator& c = parent.comm;
    const int size = c.size();
    if (n < 0) raise(MPI_ERR_ARG, std::string(call) + ": n " + std::to_string(n) + " is negative");
    if (n) {
      need(sources, call, "sources");
      need(degrees, call, "degrees");
    }
    long long edges = 0;
    for (int i = 0; i < n; ++i) {
      check_rank(call, sources[i], size, at("sources", i));
      if (degrees[i] < 0)
        raise(MPI_ERR_ARG, std::string(call) + ": " + at("degrees", i) + " = " + std::to_string(degrees[i]) +
                               " is negative");
      edges += degrees[i];
    }
    if (edges > INT_MAX / 3) raise(MPI_ERR_ARG, std::string(call) + ": too many edges (" + std::to_string(edges) + ")");
    if (edges) need(destinations, call, "destinations");
    for (long long e = 0; e < edges; ++e) check_rank(call, destinations[e], size, at("destinations", static_cast<int>(e)));
    check_weights(call, weights, static_cast<int>(edges), "weights");
    const bool weighted = real_weights(weights);
    // Per destination rank: triples (0 = out-edge / 1 = in-edge, the other end, weight).
    std::vector<std::vector<int>> out(size);
    long long e = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < degrees[i]; ++j, ++e) {
        const int s = sources[i], d = destinations[e], w = weighted && edges ? weights[e] : 1;
        out[s].insert(out[s].end(), {0, d, w});
        out[d].insert(out[d].end(), {1, s, w});
      }
    std::vector<size_t> scounts(size), sdispls(size), rcounts(size), rdispls(size);
    std::vector<int> sendbuf;
    for (int r = 0; r < size; ++r) {
      sdispls[r] = sendbuf.size();
      scounts[r] = out[r].size();
      sendbuf.insert(sendbuf.end(), out[r].begin(), out[r].end());
    }
    coll::alltoall(c, scounts.data(), rcounts.data(), 1, Datatype::uint64);
    size_t total = 0;
    for (int r = 0; r < size; ++r) {
      rdispls[r] = total;
      total += rcounts[r];
    }
    std::vector<int> recvbuf(std::max<size_t>(total, 1));
    sendbuf.resize(std::max<size_t>(sendbuf.size(), 1));
    coll::alltoallv(c, sendbuf.data(), scounts, sdispls, recvbuf.data(), rcounts, rdispls, Datatype::int32);
    auto t = std::make_shared<Topology>();
    t->kind = MPI_DIST_GRAPH;
    t->weighted = weighted;
    for (size_t k = 0; k + 2 < total; k += 3) {
      if (recvbuf[k] == 0) {
        t->dests.push_back(recvbuf[k + 1]);
        t->dest_weights.push_back(recvbuf[k + 2]);
      } else {
        t->sources.push_back(recvbuf[k + 1]);
        t->source_weights.push_back(recvbuf[k + 2]);
      }
    }
    if (!weighted) t->source_weights.clear(), t->dest_weights.clear();
    *comm_dist_graph = attach(parent, c.dup(), std::move(t));
  });
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(indegree, call, "indegree");
    need(outdegree, call, "outdegree");
    need(weighted, call, "weighted");
    const Topology& t = require_topology(call, comm, MPI_DIST_GRAPH);
    *indegree = static_cast<int>(t.sources.size());
    *outdegree = static_cast<int>(t.dests.size());
    *weighted = t.weighted ? 1 : 0;
  });
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) {
  const char* call = "MPI_Dist_graph_neighbors";
  return guard(call, comm, [&] {
    require_initialized(call);
    const Topology& t = require_topology(call, comm, MPI_DIST_GRAPH);
    if (maxindegree < static_cast<int>(t.sources.size()) || maxoutdegree < static_cast<int>(t.dests.size()))
      raise(MPI_ERR_ARG, std::string(call) + ": maxindegree " + std::to_string(maxindegree) + " / maxoutdegree " +
                             std::to_string(maxoutdegree) + " are less than the degrees " +
                             std::to_string(t.sources.size()) + " / " + std::to_string(t.dests.size()));
    if (!t.sources.empty()) need(sources, call, "sources");
    if (!t.dests.empty()) need(destinations, call, "destinations");
    std::copy(t.sources.begin(), t.sources.end(), sources);
    std::copy(t.dests.begin(), t.dests.end(), destinations);
    auto put_weights = [&](const std::vector<int>& w, int* out) {
      if (!t.weighted || w.empty() || out == MPI_UNWEIGHTED || out == MPI_WEIGHTS_EMPTY || !out) return;
      std::copy(w.begin(), w.end(), out);
    };
    put_weights(t.source_weights, sourceweights);
    put_weights(t.dest_weights, destweights);
  });
}

}  // extern "C"
