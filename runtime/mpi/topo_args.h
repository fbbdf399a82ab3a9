// The argument check every topology call starts with: a valid communicator
// carrying a topology of the kind the call reads, reported through the
// communicator's error handler (MPI_ERR_COMM, MPI_ERR_TOPOLOGY) naming the
// call. Shared by mpi_cart.cpp, mpi_graph.cpp, mpi_dist_graph.cpp and the
// neighbourhood collectives (mpi_neighbor.cpp), which take any kind.
//
//   int err = MPI_SUCCESS;
//   const Topology* t = topology_of(kFn, comm, Topology::Kind::kCart, &err);
//   if (t == nullptr) return err;
#pragma once

#include <string>

#include "mpi.h"
#include "mpi/errors.h"
#include "p2p/comm.h"
#include "p2p/topology.h"

namespace lz::rt::topo_args {

inline bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }

inline const char* kind_name(Topology::Kind k) {
  switch (k) {
    case Topology::Kind::kCart:
      return "Cartesian";
    case Topology::Kind::kGraph:
      return "graph";
    case Topology::Kind::kDistGraph:
      return "distributed graph";
  }
  return "?";
}

// The communicator's topology, of kind `kind`; null after reporting the error.
inline const Topology* topology_of(const char* fn, MPI_Comm comm, Topology::Kind kind, int* err) {
  if (!comm_ok(comm)) {
    *err = mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
    return nullptr;
  }
  if (!comm->topology || comm->topology->kind != kind) {
    *err =
        mpi_error(comm, fn, MPI_ERR_TOPOLOGY, std::string("the communicator has no ") + kind_name(kind) + " topology");
    return nullptr;
  }
  return comm->topology.get();
}

// The communicator's topology, of any kind; null after reporting the error.
inline const Topology* any_topology_of(const char* fn, MPI_Comm comm, int* err) {
  if (!comm_ok(comm)) {
    *err = mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
    return nullptr;
  }
  if (!comm->topology) {
    *err = mpi_error(comm, fn, MPI_ERR_TOPOLOGY,
                     "the communicator has no process topology (Cartesian, graph or distributed graph)");
    return nullptr;
  }
  return comm->topology.get();
}

}  // namespace lz::rt::topo_args
