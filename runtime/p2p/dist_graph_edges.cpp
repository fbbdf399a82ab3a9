#include "p2p/dist_graph_edges.h"

#include <algorithm>
#include <utility>

namespace lz::rt {

EdgeRoutes route_edges(int nprocs, int n, const int* sources, const int* degrees, const int* destinations,
                       const int* weights) {
  std::vector<std::vector<int>> per(static_cast<size_t>(nprocs));
  size_t e = 0;
  for (int i = 0; i < n; ++i) {
    const int s = sources[i];
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      const int d = destinations[e];
      const int w = weights != nullptr ? weights[e] : 1;
      auto& to_s = per[static_cast<size_t>(s)];
      to_s.insert(to_s.end(), {kEdgeOut, d, w});
      auto& to_d = per[static_cast<size_t>(d)];
      to_d.insert(to_d.end(), {kEdgeIn, s, w});
    }
  }
  EdgeRoutes r;
  r.counts.resize(static_cast<size_t>(nprocs));
  r.displs.resize(static_cast<size_t>(nprocs));
  for (size_t p = 0; p < per.size(); ++p) {
    r.displs[p] = static_cast<int>(r.data.size());
    r.counts[p] = static_cast<int>(per[p].size());
    r.data.insert(r.data.end(), per[p].begin(), per[p].end());
  }
  return r;
}

DistGraphAdjacency assemble_edges(const int* records, size_t n_ints) {
  // (neighbour, weight) in arrival order, then a stable sort by neighbour:
  // arrival order is (naming process, position), which breaks the ties.
  std::vector<std::pair<int, int>> in, out;
  for (size_t i = 0; i + kEdgeRecordInts <= n_ints; i += kEdgeRecordInts) {
    auto& list = records[i] == kEdgeIn ? in : out;
    list.emplace_back(records[i + 1], records[i + 2]);
  }
  auto by_neighbour = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
  std::stable_sort(in.begin(), in.end(), by_neighbour);
  std::stable_sort(out.begin(), out.end(), by_neighbour);
  DistGraphAdjacency a;
  for (const auto& [r, w] : in) {
    a.sources.push_back(r);
    a.sourceweights.push_back(w);
  }
  for (const auto& [r, w] : out) {
    a.destinations.push_back(r);
    a.destweights.push_back(w);
  }
  return a;
}

}  // namespace lz::rt
