// MPI binding: distributed graph topologies (MPI-3.1 section 7.5.4):
// MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create and the queries
// MPI_Dist_graph_neighbors_count / _neighbors. A process keeps only its own
// adjacency (p2p/topology.h); the neighbourhood collectives read it
// (mpi_neighbor.cpp). reorder is accepted and not acted on: rank i of the
// new communicator is rank i of the old one (MPI allows the identity, as
// for Cartesian and graph topologies), and every rank takes part. info
// hints are accepted and ignored.
//
// Order of the neighbours: _create_adjacent keeps the caller's lists as
// given; _create sorts each by neighbour rank, edges to or from one
// neighbour in the order (naming rank, position in its arguments)
// (p2p/dist_graph_edges.h), which both ends of those edges share.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/frameworks/coll.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/topo_args.h"
#include "p2p/comm.h"
#include "p2p/comm_factory.h"
#include "p2p/dist_graph_edges.h"
#include "p2p/topology.h"

using lz::rt::mpi_error;
using lz::rt::Topology;
using namespace lz::rt::topo_args;

namespace {

std::string str(int v) { return std::to_string(v); }

const Topology* dist_graph_of(const char* fn, MPI_Comm comm, int* err) {
  return topology_of(fn, comm, Topology::Kind::kDistGraph, err);
}

int check_info(const char* fn, MPI_Comm comm, MPI_Info info) {
  if (info != MPI_INFO_NULL && !info->valid()) return mpi_error(comm, fn, MPI_ERR_INFO, "invalid info");
  return MPI_SUCCESS;
}

// Ranks of `comm`: ranks[0 .. n), named `what` in messages.
int check_ranks(const char* fn, MPI_Comm comm, const char* what, const int* ranks, int n) {
  if (n > 0 && ranks == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, std::string(what) + " is NULL");
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= comm->size())
      return mpi_error(comm, fn, MPI_ERR_RANK,
                       std::string(what) + "[" + str(i) + "] = " + str(ranks[i]) +
                           " is not a rank of the communicator (size " + str(comm->size()) + ")");
  return MPI_SUCCESS;
}

// n weights of a weighted graph: a real array (MPI_WEIGHTS_EMPTY or NULL
// only for none), each non-negative.
int check_weights(const char* fn, MPI_Comm comm, const char* what, const int* weights, int n) {
  if (n == 0) return MPI_SUCCESS;
  if (weights == nullptr || weights == MPI_WEIGHTS_EMPTY)
    return mpi_error(
        comm, fn, MPI_ERR_ARG,
        std::string(what) + (weights == nullptr ? " is NULL" : " is MPI_WEIGHTS_EMPTY") + " for " + str(n) + " edges");
  for (int i = 0; i < n; ++i)
    if (weights[i] < 0)
      return mpi_error(comm, fn, MPI_ERR_ARG,
                       std::string(what) + "[" + str(i) + "] = " + str(weights[i]) + " is negative");
  return MPI_SUCCESS;
}

int check_degree(const char* fn, MPI_Comm comm, const char* what, int degree) {
  if (degree < 0) return mpi_error(comm, fn, MPI_ERR_ARG, std::string(what) + " " + str(degree) + " is negative");
  return MPI_SUCCESS;
}

// A communicator of the same ranks as `comm_old` carrying `topo`.
int make_dist_graph_comm(const char* fn, MPI_Comm comm_old, std::shared_ptr<const Topology> topo, MPI_Comm* out) {
  auto c = lz::rt::comm_dup(*comm_old);
  if (!c.ok()) return mpi_error(comm_old, fn, c.status());
  (*c)->topology = std::move(topo);
  *out = *c;
  return MPI_SUCCESS;
}

// MPI_Dist_graph_create's own arguments (everything but the communicator).
int check_general(const char* fn, MPI_Comm comm, int n, const int* sources, const int* degrees, const int* destinations,
                  const int* weights, MPI_Info info, MPI_Comm* newcomm) {
  if (newcomm == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "comm_dist_graph is NULL");
  if (int e = check_info(fn, comm, info)) return e;
  if (int e = check_degree(fn, comm, "n", n)) return e;
  if (int e = check_ranks(fn, comm, "sources", sources, n)) return e;
  if (n > 0 && degrees == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "degrees is NULL");
  long long edges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0)
      return mpi_error(comm, fn, MPI_ERR_ARG, "degrees[" + str(i) + "] = " + str(degrees[i]) + " is negative");
    edges += degrees[i];
  }
  if (edges > (1 << 28)) return mpi_error(comm, fn, MPI_ERR_ARG, "more than 2^28 edges");
  const int ne = static_cast<int>(edges);
  if (int e = check_ranks(fn, comm, "destinations", destinations, ne)) return e;
  if (weights != MPI_UNWEIGHTED) return check_weights(fn, comm, "weights", weights, ne);
  return MPI_SUCCESS;
}

int int_alltoall(const char* fn, MPI_Comm comm, const int* sbuf, int count, int* rbuf) {
  lz::coll::Module* m = comm->coll_table[lz::coll::kAlltoall];
  if (m == nullptr) return mpi_error(comm, fn, MPI_ERR_INTERN, "no collective module provides alltoall");
  const lz::dt::Datatype& t = lz::dt::internal_type(lz::dt::Basic::kInt);
  lz::Status s = m->alltoall(sbuf, count, t, rbuf, count, t, *comm);
  return s.ok() ? MPI_SUCCESS : mpi_error(comm, fn, s);
}

int int_alltoallv(const char* fn, MPI_Comm comm, const int* sbuf, const int* scounts, const int* sdispls, int* rbuf,
                  const int* rcounts, const int* rdispls) {
  lz::coll::Module* m = comm->coll_table[lz::coll::kAlltoallv];
  if (m == nullptr) return mpi_error(comm, fn, MPI_ERR_INTERN, "no collective module provides alltoallv");
  const lz::dt::Datatype& t = lz::dt::internal_type(lz::dt::Basic::kInt);
  lz::Status s = m->alltoallv(sbuf, scounts, sdispls, t, rbuf, rcounts, rdispls, t, *comm);
  return s.ok() ? MPI_SUCCESS : mpi_error(comm, fn, s);
}

}  // namespace

extern "C" {

// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (mpi.h).
int lz_mpi_unweighted[1] = {0};
int lz_mpi_weights_empty[1] = {0};

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  static constexpr const char* kFn = "MPI_Dist_graph_create_adjacent";
  LZ_MPI_ENTRY(kFn);
  (void)reorder;  // identity: see the top of this file
  if (!comm_ok(comm_old)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm_old->is_inter()) return mpi_error(comm_old, kFn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (comm_dist_graph == nullptr) return mpi_error(comm_old, kFn, MPI_ERR_ARG, "comm_dist_graph is NULL");
  *comm_dist_graph = MPI_COMM_NULL;
  if (int e = check_info(kFn, comm_old, info)) return e;
  const bool unweighted_in = sourceweights == MPI_UNWEIGHTED, unweighted_out = destweights == MPI_UNWEIGHTED;
  if (unweighted_in != unweighted_out)
    return mpi_error(comm_old, kFn, MPI_ERR_ARG,
                     std::string("MPI_UNWEIGHTED is given for ") + (unweighted_in ? "sourceweights" : "destweights") +
                         " only: a graph is weighted or not");
  const bool weighted = !unweighted_in;
  if (int e = check_degree(kFn, comm_old, "indegree", indegree)) return e;
  if (int e = check_degree(kFn, comm_old, "outdegree", outdegree)) return e;
  if (int e = check_ranks(kFn, comm_old, "sources", sources, indegree)) return e;
  if (int e = check_ranks(kFn, comm_old, "destinations", destinations, outdegree)) return e;
  if (weighted) {
    if (int e = check_weights(kFn, comm_old, "sourceweights", sourceweights, indegree)) return e;
    if (int e = check_weights(kFn, comm_old, "destweights", destweights, outdegree)) return e;
  }
  auto topo = std::make_shared<Topology>();
  topo->kind = Topology::Kind::kDistGraph;
  topo->weighted = weighted;
  topo->sources.assign(sources, sources + indegree);
  topo->destinations.assign(destinations, destinations + outdegree);
  if (weighted) {
    topo->sourceweights.assign(sourceweights, sourceweights + indegree);
    topo->destweights.assign(destweights, destweights + outdegree);
  }
  return make_dist_graph_comm(kFn, comm_old, std::move(topo), comm_dist_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  static constexpr const char* kFn = "MPI_Dist_graph_create";
  LZ_MPI_ENTRY(kFn);
  (void)reorder;  // identity: see the top of this file
  if (!comm_ok(comm_old)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm_old->is_inter()) return mpi_error(comm_old, kFn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (comm_dist_graph != nullptr) *comm_dist_graph = MPI_COMM_NULL;
  const int size = comm_old->size(), me = comm_old->rank();
  const bool weighted = weights != MPI_UNWEIGHTED;
  // A process whose arguments are wrong reports it, then still takes part
  // in the first exchange, so that the others learn it and fail too rather
  // than wait for it for ever; the same exchange shows whether all agree on
  // MPI_UNWEIGHTED.
  const int err = check_general(kFn, comm_old, n, sources, degrees, destinations, weights, info, comm_dist_graph);
  lz::rt::EdgeRoutes routes;
  if (err == MPI_SUCCESS)
    routes = lz::rt::route_edges(size, n, sources, degrees, destinations, weighted ? weights : nullptr);
  else
    routes.counts.assign(static_cast<size_t>(size), 0);
  enum : int { kBadArguments = 1, kWeighted = 2 };
  std::vector<int> head(2 * static_cast<size_t>(size)), heads(2 * static_cast<size_t>(size));
  for (int p = 0; p < size; ++p) {
    head[2 * static_cast<size_t>(p)] = routes.counts[static_cast<size_t>(p)];
    head[2 * static_cast<size_t>(p) + 1] = (err != MPI_SUCCESS ? kBadArguments : 0) | (weighted ? kWeighted : 0);
  }
  if (int e = int_alltoall(kFn, comm_old, head.data(), 2, heads.data())) return e;
  if (err != MPI_SUCCESS) return err;
  std::vector<int> rcounts(static_cast<size_t>(size)), rdispls(static_cast<size_t>(size));
  int total = 0;
  for (int p = 0; p < size; ++p) {
    const int flags = heads[2 * static_cast<size_t>(p) + 1];
    if (flags & kBadArguments)
      return mpi_error(comm_old, kFn, MPI_ERR_ARG, "rank " + str(p) + " gave invalid arguments (reported there)");
    if (((flags & kWeighted) != 0) != weighted)
      return mpi_error(comm_old, kFn, MPI_ERR_ARG,
                       "rank " + str(p) + (weighted ? " gave" : " did not give") + " MPI_UNWEIGHTED, rank " + str(me) +
                           (weighted ? " did not" : " did"));
    rcounts[static_cast<size_t>(p)] = heads[2 * static_cast<size_t>(p)];
    rdispls[static_cast<size_t>(p)] = total;
    total += rcounts[static_cast<size_t>(p)];
  }
  std::vector<int> records(static_cast<size_t>(total));
  if (int e = int_alltoallv(kFn, comm_old, routes.data.data(), routes.counts.data(), routes.displs.data(),
                            records.data(), rcounts.data(), rdispls.data()))
    return e;
  lz::rt::DistGraphAdjacency adj = lz::rt::assemble_edges(records.data(), records.size());
  auto topo = std::make_shared<Topology>();
  topo->kind = Topology::Kind::kDistGraph;
  topo->weighted = weighted;
  topo->sources = std::move(adj.sources);
  topo->destinations = std::move(adj.destinations);
  if (weighted) {
    topo->sourceweights = std::move(adj.sourceweights);
    topo->destweights = std::move(adj.destweights);
  }
  return make_dist_graph_comm(kFn, comm_old, std::move(topo), comm_dist_graph);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  static constexpr const char* kFn = "MPI_Dist_graph_neighbors_count";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = dist_graph_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (indegree == nullptr || outdegree == nullptr || weighted == nullptr)
    return mpi_error(comm, kFn, MPI_ERR_ARG, "indegree, outdegree or weighted is NULL");
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

// As MPI_Graph_neighbors: the first maxindegree sources and maxoutdegree
// destinations; the weights only for a weighted graph (the arrays are left
// alone otherwise, and when they are MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY).
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) {
  static constexpr const char* kFn = "MPI_Dist_graph_neighbors";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = dist_graph_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (int e = check_degree(kFn, comm, "maxindegree", maxindegree)) return e;
  if (int e = check_degree(kFn, comm, "maxoutdegree", maxoutdegree)) return e;
  const size_t in = std::min(t->sources.size(), static_cast<size_t>(maxindegree));
  const size_t out = std::min(t->destinations.size(), static_cast<size_t>(maxoutdegree));
  if ((in > 0 && sources == nullptr) || (out > 0 && destinations == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "sources or destinations is NULL");
  auto real = [](const int* w) { return w != nullptr && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY; };
  for (size_t i = 0; i < in; ++i) {
    sources[i] = t->sources[i];
    if (t->weighted && real(sourceweights)) sourceweights[i] = t->sourceweights[i];
  }
  for (size_t i = 0; i < out; ++i) {
    destinations[i] = t->destinations[i];
    if (t->weighted && real(destweights)) destweights[i] = t->destweights[i];
  }
  return MPI_SUCCESS;
}

}  // extern "C"
