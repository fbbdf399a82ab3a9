// Display names of the frameworks' capability bits and coll functions.
#include <string>

#include "lazarus/frameworks/coll.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"

namespace lz {
namespace {
std::string names_of(uint64_t bits, const char* const* names, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (!(bits & (1ull << i))) continue;
    if (!out.empty()) out += ',';
    out += names[i];
  }
  return out.empty() ? "none" : out;
}
}  // namespace

namespace transport {
std::string capability_names(uint64_t caps) {
  static const char* const kNames[] = {"self", "local-host", "get", "wait-fd", "checkpoint", "put"};
  return names_of(caps, kNames, 6);
}
}  // namespace transport

namespace cr {
std::string capability_names(uint64_t caps) {
  static const char* const kNames[] = {"core-image",   "app-level", "needs-privilege", "portable",
                                       "change-ranks", "restore",   "single-process", "records-files"};
  return names_of(caps, kNames, 8);
}
}  // namespace cr

namespace crcp {
std::string capability_names(uint64_t caps) {
  static const char* const kNames[] = {"drain", "message-log"};
  return names_of(caps, kNames, 2);
}
}  // namespace crcp

namespace coll {
const char* function_name(Function f) noexcept {
  static const char* const kNames[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv",
                                       "scatter", "scatterv", "allgather", "allgatherv", "alltoall",
                                       "alltoallv", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};
  return f < kNumFunctions ? kNames[f] : "?";
}
}  // namespace coll

}  // namespace lz
