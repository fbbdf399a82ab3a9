#include "p2p/group.h"

lz_mpi_group_s lz_mpi_group_empty = [] {
  lz_mpi_group_s g;
  g.predefined = true;
  return g;
}();

int lz_mpi_group_s::rank_of_world(int w) const {
  for (size_t i = 0; i < world_ranks.size(); ++i)
    if (world_ranks[i] == w) return static_cast<int>(i);
  return MPI_UNDEFINED;
}

lz_mpi_group_s* lz_mpi_group_s::make(std::vector<int> world_ranks, int my_world) {
  auto* g = new lz_mpi_group_s();
  g->world_ranks = std::move(world_ranks);
  g->my_rank = g->rank_of_world(my_world);
  return g;
}
