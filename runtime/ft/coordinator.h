// Coordinator: the collective operations liblazarus-ft's checkpoint logic
// (Session) needs from the MPI it runs over. The vendor side
// (vendor/pmpi_coordinator.cpp) implements them with PMPI calls on a private
// duplicate of MPI_COMM_WORLD, so the checkpoint logic is compiled once,
// without any vendor's mpi.h, and its collectives never match the program's.
//
// Every method is collective: all ranks call it in the same order, as with
// MPI collectives. Errors are the vendor's, as kInternal naming the call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::ft {

class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Element-wise sum over all ranks, in place; `v` has the same length on
  // every rank.
  virtual Status sum(std::vector<uint64_t>& v) = 0;
  // Rank 0's `text` replaces every other rank's.
  virtual Status broadcast(std::string& text) = 0;
};

}  // namespace lz::ft
