#include "p2p/cpu_sharing.h"

#include <set>

namespace lz::rt {

bool shares_cpus_with_more_ranks(const std::vector<std::vector<int>>& local, size_t self) {
  if (self >= local.size()) return false;
  const std::vector<int>& mine = local[self];
  auto overlaps = [&](const std::vector<int>& other) {
    for (size_t i = 0, j = 0; i < mine.size() && j < other.size();) {
      if (mine[i] == other[j]) return true;
      if (mine[i] < other[j]) ++i;
      else ++j;
    }
    return false;
  };
  std::set<int> cpus;
  size_t ranks = 0;
  for (const auto& other : local) {
    if (&other != &mine && !overlaps(other)) continue;
    ++ranks;
    cpus.insert(other.begin(), other.end());
  }
  return ranks > cpus.size();
}

}  // namespace lz::rt
