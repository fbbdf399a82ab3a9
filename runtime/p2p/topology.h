// Topology: the process topology a communicator carries (MPI-3.1 chapter 7),
// set by MPI_Cart_create / MPI_Cart_sub / MPI_Graph_create /
// MPI_Dist_graph_create(_adjacent), kept by MPI_Comm_dup, read by the
// MPI_Cart_* / MPI_Graph_* / MPI_Dist_graph_* queries, MPI_Topo_test and
// the neighbourhood collectives. Immutable once made: communicators share it.
//
//   Cartesian: ranks in row-major order over dims (the last dimension
//   varies fastest), each dimension periodic or not.
//   Graph: node i's neighbours are edges[index[i-1] .. index[i]) (index[-1]
//   is 0), MPI_Graph_create's arrays as given.
//   Distributed graph: only this process's adjacency, as MPI keeps it
//   (sources: in-neighbours, destinations: out-neighbours, each with its
//   weight when the graph is weighted; repeated neighbours allowed).
//
//   std::vector<int> in, out;
//   topo.neighbours_of(comm.rank(), &in, &out);  // what a neighbour collective exchanges
#pragma once

#include <vector>

#include "mpi.h"

namespace lz::rt {

struct Topology {
  enum class Kind { kCart, kGraph, kDistGraph };
  Kind kind = Kind::kCart;
  std::vector<int> dims;     // kCart
  std::vector<int> periods;  // kCart: 0 or 1 per dimension
  std::vector<int> index;    // kGraph
  std::vector<int> edges;    // kGraph
  // kDistGraph: this process's in- and out-neighbours in the order
  // MPI_Dist_graph_neighbors returns them; the weights are empty when
  // !weighted (MPI_UNWEIGHTED at creation).
  std::vector<int> sources, sourceweights;
  std::vector<int> destinations, destweights;
  bool weighted = false;

  // kCart: the coordinates of `rank` (0 <= rank < product of dims).
  std::vector<int> coords_of(int rank) const {
    std::vector<int> c(dims.size());
    for (size_t i = dims.size(); i-- > 0;) {
      c[i] = rank % dims[i];
      rank /= dims[i];
    }
    return c;
  }
  // kCart: the rank at `coords`, wrapped in periodic dimensions; -1 when a
  // coordinate of a non-periodic dimension is out of range.
  int rank_of(const std::vector<int>& coords) const {
    int r = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      int c = coords[i];
      if (c < 0 || c >= dims[i]) {
        if (!periods[i]) return -1;
        c = ((c % dims[i]) + dims[i]) % dims[i];
      }
      r = r * dims[i] + c;
    }
    return r;
  }
  // kGraph: the neighbours of node `rank`.
  std::vector<int> neighbours(int rank) const {
    const int from = rank == 0 ? 0 : index[static_cast<size_t>(rank) - 1];
    return std::vector<int>(edges.begin() + from, edges.begin() + index[static_cast<size_t>(rank)]);
  }
  // The neighbours a neighbourhood collective of `rank` receives from (*in,
  // block i of the receive buffer from (*in)[i]) and sends to (*out), as
  // MPI-3.1 section 7.6 orders them:
  //   Cartesian: per dimension, the -1 then the +1 neighbour (MPI_Cart_shift
  //   with disp 1: source then destination), both lists alike;
  //   MPI_PROC_NULL off the edge of a non-periodic dimension (the block
  //   keeps its slot; no transfer);
  //   graph: neighbours(rank) both ways;
  //   distributed graph: sources in, destinations out (`rank` must be this
  //   process's: nothing else is known here).
  void neighbours_of(int rank, std::vector<int>* in, std::vector<int>* out) const {
    switch (kind) {
      case Kind::kCart: {
        in->clear();
        std::vector<int> c = coords_of(rank);
        for (size_t d = 0; d < dims.size(); ++d) {
          const int here = c[d];
          for (int disp : {-1, 1}) {
            c[d] = here + disp;
            const int r = rank_of(c);
            in->push_back(r < 0 ? MPI_PROC_NULL : r);
          }
          c[d] = here;
        }
        *out = *in;
        break;
      }
      case Kind::kGraph:
        *in = neighbours(rank);
        *out = *in;
        break;
      case Kind::kDistGraph:
        *in = sources;
        *out = destinations;
        break;
    }
  }
};

}  // namespace lz::rt
