#include <algorithm>
#include <string>
#include <vector>

#include "lazarus/frameworks/crcp.h"

namespace lz::crcp {

namespace {
std::string describe(int peer, const Bookmark& got, const Bookmark& want) {
  return "rank " + std::to_string(peer) + " (received " + std::to_string(got.messages) + " of " +
         std::to_string(want.messages) + " frames, " + std::to_string(got.bytes) + " of " + std::to_string(want.bytes) +
         " bytes)";
}
}  // namespace

Status drain_to_bookmarks(Coordinator& c, std::chrono::milliseconds timeout) {
  c.hold_sends(true);
  const int n = c.size();
  std::vector<Bookmark> mine(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) mine[static_cast<size_t>(p)] = c.sent_to(p);
  LZ_ASSIGN_OR_RETURN(std::vector<Bookmark> theirs, c.exchange(mine));
  if (theirs.size() != static_cast<size_t>(n))
    return ProtocolError("bookmark exchange returned " + std::to_string(theirs.size()) + " entries for " +
                         std::to_string(n) + " ranks");
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    std::string behind, ahead;
    for (int p = 0; p < n; ++p) {
      const Bookmark got = c.received_from(p);
      const Bookmark& want = theirs[static_cast<size_t>(p)];
      if (got == want) continue;
      std::string& list = (got.messages > want.messages || got.bytes > want.bytes) ? ahead : behind;
      list += (list.empty() ? "" : ", ") + describe(p, got, want);
    }
    if (!ahead.empty())
      return Internal("bookmarks inconsistent: received more than the peer says it sent from " + ahead);
    if (behind.empty()) return Status::Ok();
    const Clock::time_point now = Clock::now();
    if (now >= deadline)
      return Timeout("drain timed out after " + std::to_string(timeout.count()) + " ms waiting for " + behind);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    LZ_RETURN_IF_ERROR(c.progress_receives(std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(10))));
  }
}

}  // namespace lz::crcp
