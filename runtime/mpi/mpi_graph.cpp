// MPI binding: graph topologies (MPI-3.1 sections 7.5.3, 7.5.5, 7.5.7) and
// MPI_Topo_test (distributed graphs: mpi_dist_graph.cpp). As for Cartesian ones, reorder keeps every rank where it
// is: the first nnodes ranks take part, the others get MPI_COMM_NULL.
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/topo_args.h"
#include "p2p/comm.h"
#include "p2p/comm_factory.h"
#include "p2p/topology.h"

using lz::rt::mpi_error;
using lz::rt::Topology;
using namespace lz::rt::topo_args;

namespace {

const Topology* graph_of(const char* fn, MPI_Comm comm, int* err) {
  return topology_of(fn, comm, Topology::Kind::kGraph, err);
}

// graph_of(), also checking that `rank` is a node of the graph.
const Topology* graph_node(const char* fn, MPI_Comm comm, int rank, int* err) {
  const Topology* t = graph_of(fn, comm, err);
  if (t != nullptr && (rank < 0 || rank >= static_cast<int>(t->index.size()))) {
    *err = mpi_error(comm, fn, MPI_ERR_RANK,
                     "invalid rank " + std::to_string(rank) + " (graph of " + std::to_string(t->index.size()) +
                         " nodes)");
    return nullptr;
  }
  return t;
}

// index[] nondecreasing from 0, every edge a node of the graph.
int check_graph(const char* fn, MPI_Comm comm, int nnodes, const int* index, const int* edges) {
  if (nnodes < 0 || nnodes > comm->size())
    return mpi_error(comm, fn, MPI_ERR_ARG,
                     "nnodes " + std::to_string(nnodes) + " is not between 0 and the communicator's " +
                         std::to_string(comm->size()) + " ranks");
  if (nnodes > 0 && index == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "index is NULL");
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i == 0 ? 0 : index[i - 1]))
      return mpi_error(comm, fn, MPI_ERR_ARG, "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
                                                  " is less than the entry before it");
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  if (nedges > 0 && edges == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "edges is NULL");
  for (int e = 0; e < nedges; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return mpi_error(comm, fn, MPI_ERR_ARG,
                       "edges[" + std::to_string(e) + "] = " + std::to_string(edges[e]) + " is not a node (0.." +
                           std::to_string(nnodes - 1) + ")");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  static constexpr const char* kFn = "MPI_Graph_create";
  LZ_MPI_ENTRY(kFn);
  (void)reorder;
  if (!comm_ok(comm_old)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm_old->is_inter()) return mpi_error(comm_old, kFn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (comm_graph == nullptr) return mpi_error(comm_old, kFn, MPI_ERR_ARG, "comm_graph is NULL");
  *comm_graph = MPI_COMM_NULL;
  if (int e = check_graph(kFn, comm_old, nnodes, index, edges)) return e;
  auto topo = std::make_shared<Topology>();
  topo->kind = Topology::Kind::kGraph;
  topo->index.assign(index, index + nnodes);
  topo->edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
  const int me = comm_old->rank();
  auto c = lz::rt::comm_split(*comm_old, me < nnodes ? 0 : MPI_UNDEFINED, me);
  if (!c.ok()) return mpi_error(comm_old, kFn, c.status());
  if (*c != nullptr) (*c)->topology = std::move(topo);
  *comm_graph = *c;
  return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  static constexpr const char* kFn = "MPI_Graphdims_get";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = graph_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (nnodes == nullptr || nedges == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "nnodes or nedges is NULL");
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  static constexpr const char* kFn = "MPI_Graph_get";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = graph_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if ((maxindex > 0 && index == nullptr) || (maxedges > 0 && edges == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "index or edges is NULL");
  for (int i = 0; i < maxindex && i < static_cast<int>(t->index.size()); ++i) index[i] = t->index[static_cast<size_t>(i)];
  for (int i = 0; i < maxedges && i < static_cast<int>(t->edges.size()); ++i) edges[i] = t->edges[static_cast<size_t>(i)];
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  static constexpr const char* kFn = "MPI_Graph_neighbors_count";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = graph_node(kFn, comm, rank, &err);
  if (t == nullptr) return err;
  if (nneighbors == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "nneighbors is NULL");
  *nneighbors = static_cast<int>(t->neighbours(rank).size());
  return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  static constexpr const char* kFn = "MPI_Graph_neighbors";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = graph_node(kFn, comm, rank, &err);
  if (t == nullptr) return err;
  const std::vector<int> nb = t->neighbours(rank);
  if (maxneighbors > 0 && neighbors == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "neighbors is NULL");
  for (int i = 0; i < maxneighbors && i < static_cast<int>(nb.size()); ++i) neighbors[i] = nb[static_cast<size_t>(i)];
  return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  static constexpr const char* kFn = "MPI_Graph_map";
  LZ_MPI_ENTRY(kFn);
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (int e = check_graph(kFn, comm, nnodes, index, edges)) return e;
  if (newrank == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "newrank is NULL");
  *newrank = comm->rank() < nnodes ? comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  static constexpr const char* kFn = "MPI_Topo_test";
  LZ_MPI_ENTRY(kFn);
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (status == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "status is NULL");
  if (!comm->topology) *status = MPI_UNDEFINED;
  else if (comm->topology->kind == Topology::Kind::kCart) *status = MPI_CART;
  else if (comm->topology->kind == Topology::Kind::kGraph) *status = MPI_GRAPH;
  else *status = MPI_DIST_GRAPH;
  return MPI_SUCCESS;
}

}  // extern "C"
