// MPI binding: Cartesian topologies (MPI-3.1 section 7.5.1, 7.5.5-7.5.7).
// reorder is accepted and not acted on: rank i of the new communicator is
// rank i of the old one (MPI allows the identity), the first
// prod(dims) ranks take part and the others get MPI_COMM_NULL.
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

// The communicator's Cartesian topology, or null after reporting the error.
const Topology* cart_of(const char* fn, MPI_Comm comm, int* err) {
  return topology_of(fn, comm, Topology::Kind::kCart, err);
}

int maxdims_error(const char* fn, MPI_Comm comm, int maxdims, int n) {
  return mpi_error(comm, fn, MPI_ERR_ARG,
                   "maxdims " + std::to_string(maxdims) + " is less than the " + std::to_string(n) + " dimensions");
}

// Splits `comm` keeping its first `nnodes` ranks in order and gives the
// result `topo`; MPI_COMM_NULL elsewhere.
int make_topo_comm(const char* fn, MPI_Comm comm, int nnodes, std::shared_ptr<const Topology> topo,
                   MPI_Comm* newcomm) {
  const int me = comm->rank();
  auto c = lz::rt::comm_split(*comm, me < nnodes ? 0 : MPI_UNDEFINED, me);
  if (!c.ok()) return mpi_error(comm, fn, c.status());
  *newcomm = *c;
  if (*c != nullptr) (*c)->topology = std::move(topo);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  static constexpr const char* kFn = "MPI_Cart_create";
  LZ_MPI_ENTRY(kFn);
  (void)reorder;
  if (!comm_ok(comm_old)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm_old->is_inter()) return mpi_error(comm_old, kFn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (comm_cart == nullptr) return mpi_error(comm_old, kFn, MPI_ERR_ARG, "comm_cart is NULL");
  *comm_cart = MPI_COMM_NULL;
  if (ndims < 0) return mpi_error(comm_old, kFn, MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
  if (ndims > 0 && (dims == nullptr || periods == nullptr))
    return mpi_error(comm_old, kFn, MPI_ERR_ARG, "dims or periods is NULL");
  auto topo = std::make_shared<Topology>();
  long long nnodes = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return mpi_error(comm_old, kFn, MPI_ERR_DIMS,
                       "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
    nnodes *= dims[i];
    if (nnodes > comm_old->size())
      return mpi_error(comm_old, kFn, MPI_ERR_DIMS,
                       "the grid has more than the communicator's " + std::to_string(comm_old->size()) + " ranks");
    topo->dims.push_back(dims[i]);
    topo->periods.push_back(periods[i] ? 1 : 0);
  }
  return make_topo_comm(kFn, comm_old, static_cast<int>(nnodes), std::move(topo), comm_cart);
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  static constexpr const char* kFn = "MPI_Cartdim_get";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (ndims == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "ndims is NULL");
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  static constexpr const char* kFn = "MPI_Cart_get";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  const int n = static_cast<int>(t->dims.size());
  if (maxdims < n) return maxdims_error(kFn, comm, maxdims, n);
  if (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "dims, periods or coords is NULL");
  const std::vector<int> mine = t->coords_of(comm->rank());
  for (int i = 0; i < n; ++i) {
    dims[i] = t->dims[static_cast<size_t>(i)];
    periods[i] = t->periods[static_cast<size_t>(i)];
    coords[i] = mine[static_cast<size_t>(i)];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  static constexpr const char* kFn = "MPI_Cart_rank";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (rank == nullptr || (!t->dims.empty() && coords == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "coords or rank is NULL");
  std::vector<int> c(coords, coords + t->dims.size());
  const int r = t->rank_of(c);
  if (r < 0) {
    for (size_t i = 0; i < c.size(); ++i)
      if (c[i] < 0 || c[i] >= t->dims[i])
        return mpi_error(comm, kFn, MPI_ERR_ARG,
                         "coords[" + std::to_string(i) + "] = " + std::to_string(c[i]) +
                             " is outside the non-periodic dimension of size " + std::to_string(t->dims[i]));
  }
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  static constexpr const char* kFn = "MPI_Cart_coords";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (rank < 0 || rank >= comm->size())
    return mpi_error(comm, kFn, MPI_ERR_RANK,
                     "invalid rank " + std::to_string(rank) + " (communicator size " + std::to_string(comm->size()) +
                         ")");
  const int n = static_cast<int>(t->dims.size());
  if (maxdims < n) return maxdims_error(kFn, comm, maxdims, n);
  if (n > 0 && coords == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "coords is NULL");
  const std::vector<int> c = t->coords_of(rank);
  for (int i = 0; i < n; ++i) coords[i] = c[static_cast<size_t>(i)];
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  static constexpr const char* kFn = "MPI_Cart_shift";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (direction < 0 || direction >= static_cast<int>(t->dims.size()))
    return mpi_error(comm, kFn, MPI_ERR_ARG,
                     "direction " + std::to_string(direction) + " is not one of the " +
                         std::to_string(t->dims.size()) + " dimensions");
  if (rank_source == nullptr || rank_dest == nullptr)
    return mpi_error(comm, kFn, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
  std::vector<int> c = t->coords_of(comm->rank());
  const int here = c[static_cast<size_t>(direction)];
  c[static_cast<size_t>(direction)] = here + disp;
  int r = t->rank_of(c);
  *rank_dest = r < 0 ? MPI_PROC_NULL : r;
  c[static_cast<size_t>(direction)] = here - disp;
  r = t->rank_of(c);
  *rank_source = r < 0 ? MPI_PROC_NULL : r;
  return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Cart_sub";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  const Topology* t = cart_of(kFn, comm, &err);
  if (t == nullptr) return err;
  if (newcomm == nullptr || (!t->dims.empty() && remain_dims == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "remain_dims or newcomm is NULL");
  // Ranks that agree on every dropped coordinate form a subgrid; the kept
  // coordinates, in row-major order, are the rank in it.
  const std::vector<int> c = t->coords_of(comm->rank());
  auto sub = std::make_shared<Topology>();
  int color = 0, key = 0;
  for (size_t i = 0; i < t->dims.size(); ++i) {
    if (remain_dims[i]) {
      sub->dims.push_back(t->dims[i]);
      sub->periods.push_back(t->periods[i]);
      key = key * t->dims[i] + c[i];
    } else {
      color = color * t->dims[i] + c[i];
    }
  }
  auto nc = lz::rt::comm_split(*comm, color, key);
  if (!nc.ok()) {
    *newcomm = MPI_COMM_NULL;
    return mpi_error(comm, kFn, nc.status());
  }
  (*nc)->topology = std::move(sub);
  *newcomm = *nc;
  return MPI_SUCCESS;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  static constexpr const char* kFn = "MPI_Cart_map";
  LZ_MPI_ENTRY(kFn);
  (void)periods;
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (newrank == nullptr || (ndims > 0 && dims == nullptr))
    return mpi_error(comm, kFn, MPI_ERR_ARG, "dims or newrank is NULL");
  long long nnodes = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return mpi_error(comm, kFn, MPI_ERR_DIMS,
                       "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
    nnodes *= dims[i];
  }
  if (nnodes > comm->size())
    return mpi_error(comm, kFn, MPI_ERR_DIMS,
                     "the grid has more than the communicator's " + std::to_string(comm->size()) + " ranks");
  *newrank = comm->rank() < nnodes ? comm->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // extern "C"
