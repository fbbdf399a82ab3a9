// CheckpointCoordinator, cr=app in a spawn tree: a job's snapshot of epoch e
// lists the snapshots of epoch e of the jobs it spawned, and is committed
// after them. Each job takes its lines itself, at its own safe points
// (crcp/c3 keeps the lines consistent across the bridges: components/crcp/c3);
// the launchers only pair them by epoch.
//
//   spawned job's launcher                    parent launcher
//                                        <-   TREE_CHECKPOINT{request} (a checkpoint
//                                             asked of the root, passed down)
//   negotiates a line of its own, or refuses:
//     TREE_DONE{0, 0, "", reason}        ->   the request fails, naming it
//   line of epoch e committed (or dropped)
//     TREE_DONE{e, ok, snapshot, reason} ->   app_child_line: kept by epoch
//                                             its own line of epoch e, every
//                                             rank done: app_maybe_commit
//                                             waits for each child that runs
//                                             since before e, then commits
//                                             with file "spawned" (in spawn
//                                             order), or drops the line when
//                                             a child's failed or it ended.
#include "launcher/checkpoint_coordinator.h"
#include "lazarus/log.h"

namespace lz::launcher {

using oob::MsgType;

void CheckpointCoordinator::app_child_started(pid_t child, uint64_t from_epoch) {
  app_children_.push_back({child, from_epoch, "", {}});
  log::debug("spawned job (launcher pid %d) takes part in this job's snapshots after epoch %llu",
             static_cast<int>(child), static_cast<unsigned long long>(from_epoch));
}

void CheckpointCoordinator::app_ask_children(uint64_t request) {
  if (tree_ == nullptr) return;
  for (pid_t child : tree_->children())
    tree_->to_child(child, MsgType::kTreeCheckpoint, oob::encode_tree_round({request, 0}));
}

void CheckpointCoordinator::app_child_line(pid_t child, const oob::TreeDoneMsg& m) {
  if (m.round == 0) {
    // It refused the request passed down: so does this job (the line this
    // job takes for it would wait for the child's in vain).
    const std::string why = "the spawned job (launcher pid " + std::to_string(child) + ") refused: " + m.reason;
    app_cancel_negotiation(why);
    std::vector<uint64_t> asked;
    for (const auto& [sp, line] : lines_)
      if (!line.waiters.empty()) asked.push_back(sp);
    for (uint64_t sp : asked) app_abort_line(sp, why);
    app_report_line(0, "", why);
    return;
  }
  for (AppChild& c : app_children_)
    if (c.pid == child) c.lines[m.round] = m;
  app_maybe_commit_all();
}

void CheckpointCoordinator::app_child_ended(pid_t child, const std::string& why) {
  for (AppChild& c : app_children_)
    if (c.pid == child && c.ended.empty()) c.ended = why;
  app_maybe_commit_all();
}

void CheckpointCoordinator::app_maybe_commit_all() {
  std::vector<uint64_t> points;
  for (const auto& [sp, line] : lines_) points.push_back(sp);
  for (uint64_t sp : points)
    if (lines_.count(sp) != 0) app_maybe_commit(sp);
}

void CheckpointCoordinator::app_maybe_commit(uint64_t safe_point) {
  auto it = lines_.find(safe_point);
  if (it == lines_.end() || !it->second.snap) return;
  AppLine& line = it->second;
  for (bool d : line.done)
    if (!d) return;
  std::vector<std::string> spawned;  // the spawned jobs' snapshots of this line, in spawn order
  for (const AppChild& c : app_children_) {
    if (c.from_epoch >= line.epoch) continue;  // spawned after this line
    auto l = c.lines.find(line.epoch);
    if (l == c.lines.end()) {
      if (c.ended.empty()) return;  // its line is still under way
      app_abort_line(safe_point, "the job spawned with launcher pid " + std::to_string(c.pid) + " ended (" + c.ended +
                                     ") before its snapshot of epoch " + std::to_string(line.epoch) +
                                     "; a snapshot of a spawn tree under cr=app needs every job of it");
      return;
    }
    if (!l->second.ok) {
      app_abort_line(safe_point, "the spawned job's snapshot of epoch " + std::to_string(line.epoch) +
                                     " was dropped: " + l->second.reason);
      return;
    }
    spawned.push_back(l->second.snapshot);
  }
  const uint64_t epoch = line.epoch;
  app_commit(safe_point, spawned);
  for (AppChild& c : app_children_) c.lines.erase(c.lines.begin(), c.lines.upper_bound(epoch));
}

Status CheckpointCoordinator::app_list_tree(const AppLine& line, const std::vector<std::string>& spawned) const {
  const std::string& dir = line.snap->dir();
  if (!spawned.empty()) LZ_RETURN_IF_ERROR(write_snapshot_list(dir, kSpawnedFile, spawned));
  if (tree_ != nullptr && tree_->has_parent())
    LZ_RETURN_IF_ERROR(write_snapshot_list(dir, kSpawnedByFile, {tree_->parent_job()}));
  return Status::Ok();
}

void CheckpointCoordinator::app_report_line(uint64_t epoch, const std::string& snapshot, const std::string& reason) {
  if (tree_ == nullptr || !tree_->has_parent()) return;
  tree_->to_parent(MsgType::kTreeDone,
                   oob::encode_tree_done({epoch, snapshot.empty() ? 0 : 1, snapshot,
                                          reason.empty() ? "" : "job " + spec_.job_id + ": " + reason}));
}

}  // namespace lz::launcher
