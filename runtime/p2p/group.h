// Group: the runtime object behind an MPI_Group handle — an ordered list of
// world ranks. Groups are values: every operation makes a new one.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi.h"

struct lz_mpi_group_s {
  std::vector<int> world_ranks;  // group rank -> world rank
  int my_rank = MPI_UNDEFINED;   // this process' rank in the group
  bool predefined = false;
  uint32_t magic = kMagic;
  static constexpr uint32_t kMagic = 0x47525550;  // "GRUP"

  bool valid() const { return magic == kMagic; }
  int size() const { return static_cast<int>(world_ranks.size()); }
  // Group rank of world rank `w`, or MPI_UNDEFINED.
  int rank_of_world(int w) const;
  // A new group; `my_world` is this process' world rank.
  static lz_mpi_group_s* make(std::vector<int> world_ranks, int my_world);
};

namespace lz::rt {
using Group = ::lz_mpi_group_s;
}  // namespace lz::rt
