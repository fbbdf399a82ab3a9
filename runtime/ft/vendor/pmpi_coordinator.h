// PmpiCoordinator: Coordinator (coordinator.h) over a vendor MPI's PMPI
// calls on a private duplicate of MPI_COMM_WORLD (made in MPI_Init, freed in
// MPI_Finalize), so that liblazarus-ft's collectives never match the
// program's messages or collectives. Compiled once per vendor.
#pragma once

#include <mpi.h>

#include "coordinator.h"

namespace lz::ft {

class PmpiCoordinator final : public Coordinator {
 public:
  // `comm`: the private communicator (owned by the caller).
  explicit PmpiCoordinator(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status sum(std::vector<uint64_t>& v) override;
  Status broadcast(std::string& text) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

}  // namespace lz::ft
