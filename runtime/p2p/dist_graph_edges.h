// Distributed graph edges: the pure part of MPI_Dist_graph_create (MPI-3.1
// section 7.5.4). Any process may name any edge s -> d; each edge must
// reach both its ends: s learns d as an out-neighbour (destination), d
// learns s as an in-neighbour (source). The binding routes every process's
// edges with route_edges(), exchanges them over the old communicator (an
// alltoall of the counts, an alltoallv of the records) and builds each
// process's adjacency from what it received with assemble_edges().
//
//   EdgeRoutes out = route_edges(size, n, sources, degrees, destinations, weights);
//   ... alltoall(out.counts) -> in_counts; alltoallv(out.data) -> received
//   DistGraphAdjacency mine = assemble_edges(received.data(), received.size());
//
// Order: each list is sorted by neighbour rank; edges to or from the same
// neighbour keep the order (naming process's rank, position in its
// arguments). Both ends of the edges between one pair of processes thus
// list them in the same order, so the k-th message a neighbourhood
// collective sends along them is the k-th its peer receives, weights
// included.
#pragma once

#include <cstddef>
#include <vector>

namespace lz::rt {

// Per process p, data[displs[p] .. displs[p] + counts[p]) are the ints to
// send it: records of kEdgeRecordInts ints {end, neighbour, weight}, end
// being kEdgeIn (neighbour is a source of p) or kEdgeOut (a destination).
inline constexpr int kEdgeRecordInts = 3;
inline constexpr int kEdgeIn = 0;
inline constexpr int kEdgeOut = 1;

struct EdgeRoutes {
  std::vector<int> counts, displs, data;
};

// The records of this process's edges: sources[i] -> destinations[j] for
// the degrees[i] destinations of source i, in order; `weights` parallel to
// destinations, or null for an unweighted graph (weight 1 is sent). The
// ranks must already be checked to lie in [0, nprocs).
EdgeRoutes route_edges(int nprocs, int n, const int* sources, const int* degrees, const int* destinations,
                       const int* weights);

struct DistGraphAdjacency {
  std::vector<int> sources, sourceweights;
  std::vector<int> destinations, destweights;
};

// One process's adjacency from the records it received, process 0's first
// (an alltoallv's receive buffer), `n_ints` ints in all.
DistGraphAdjacency assemble_edges(const int* records, size_t n_ints);

}  // namespace lz::rt
