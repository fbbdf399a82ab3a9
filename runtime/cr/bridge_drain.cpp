#include "cr/bridge_drain.h"

#include "lazarus/log.h"
#include "p2p/engine.h"

namespace lz::rt {

std::string BridgeDrain::name(int index) const {
  const ProcessName n = eng_.process_name(index);
  return "rank " + std::to_string(n.rank) + " of job " + n.job;
}

Status BridgeDrain::run(int wake_fd, const Watch& watch) {
  owed_.clear();
  for (int i = eng_.size(); i < eng_.peer_count(); ++i) {
    if (eng_.peer_lost(i)) {
      log::debug("bridge drain: %s failed before; no marker for it", name(i).c_str());
      continue;
    }
    ++eng_.marker(i).gen_out;
    owed_.push_back({i});
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout_;
  for (;;) {
    std::string waiting;
    for (Owed& o : owed_) {
      LZ_RETURN_IF_ERROR(send_owed(o));
      LZ_ASSIGN_OR_RETURN(std::string why, behind(o));
      if (!why.empty()) waiting += (waiting.empty() ? "" : ", ") + why;
    }
    if (waiting.empty()) return Status::Ok();
    if (Clock::now() >= deadline)
      return Timeout("bridge drain timed out after " + std::to_string(timeout_.count()) + " ms waiting for " +
                     waiting);
    if (watch) LZ_RETURN_IF_ERROR(watch());
    eng_.progress_wait(10, wake_fd);
  }
}

Status BridgeDrain::send_owed(Owed& o) {
  if (o.gone) return Status::Ok();
  const BridgeMarker& m = eng_.marker(o.index);
  if (o.sent && o.echo_sent == m.gen_in) return Status::Ok();
  Status s = eng_.send_marker(o.index, m.gen_out, m.gen_in);
  if (s.ok()) {
    o.sent = true;
    o.echo_sent = m.gen_in;
    return s;
  }
  if (s.code() == Code::kWouldBlock) return Status::Ok();
  if (s.code() == Code::kAborted) {
    // Its job ended (finalized), or it died: nothing more comes from it.
    log::debug("bridge drain: %s is gone (%s); no marker for it", name(o.index).c_str(), s.message().c_str());
    o.gone = true;
    // Its members of the bridges fence without it (BRIDGE_FENCE's `gone`).
    eng_.peer_gone(o.index, s);
    return Status::Ok();
  }
  return s.with_context("bridge marker to " + name(o.index));
}

StatusOr<std::string> BridgeDrain::behind(Owed& o) {
  if (o.gone) return std::string();
  if (eng_.peer_lost(o.index)) {
    log::debug("bridge drain: %s failed during the drain", name(o.index).c_str());
    o.gone = true;
    return std::string();
  }
  const BridgeMarker& m = eng_.marker(o.index);
  if (!o.sent || o.echo_sent != m.gen_in) return name(o.index) + " (our marker not taken by its transport yet)";
  if (m.echo_in != m.gen_out) return name(o.index) + " (its marker not received)";
  const crcp::Bookmark got = eng_.received_from(o.index);
  const crcp::Bookmark& want = m.value_in;
  const std::string counts = " (received " + std::to_string(got.messages) + " of " + std::to_string(want.messages) +
                             " frames, " + std::to_string(got.bytes) + " of " + std::to_string(want.bytes) +
                             " bytes)";
  if (got.messages > want.messages || got.bytes > want.bytes)
    return Internal("bridge bookmarks inconsistent: received more from " + name(o.index) +
                    " than its marker says it sent" + counts);
  if (got == want) return std::string();
  return name(o.index) + counts;
}

}  // namespace lz::rt
