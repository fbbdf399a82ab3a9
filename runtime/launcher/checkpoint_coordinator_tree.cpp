// CheckpointCoordinator, the spawn tree (oob/tree_messages.h): a job that
// spawned jobs checkpoints them with itself. The root's round asks every
// child (TREE_CHECKPOINT), which runs a round of its own and reports when
// its ranks and its own children drained (TREE_DRAINED); GO waits for the
// whole tree; each child commits its snapshot and reports it (TREE_DONE),
// and the parent lists its children's snapshots in its own (file
// "spawned"), committed last. A failure anywhere before GO aborts the whole
// tree; after GO the parent does not commit.
#include <cstdio>

#include "launcher/checkpoint_coordinator.h"
#include "lazarus/log.h"

namespace lz::launcher {

using oob::MsgType;

bool CheckpointCoordinator::in_tree() const { return tree_ != nullptr && tree_->in_tree(); }

Status CheckpointCoordinator::tree_refusal() const {
  if (!in_tree()) return Status::Ok();
  if (tree_->has_parent() && (app_mode() || !tree_round_))
    return Unavailable("job " + spec_.job_id +
                       " was started by another job (MPI_Comm_spawn): checkpoint that job, which checkpoints this "
                       "one with it");
  return Status::Ok();
}

void CheckpointCoordinator::tree_begin(uint64_t seq) {
  if (!in_tree()) return;
  flags_ |= oob::kCrSpawnTree;
  if (!tree_round_) tree_round_.emplace(TreeRound{seq});
  for (pid_t child : tree_->children()) {
    tree_round_->children[child] = TreeRound::Child::kAsked;
    tree_->to_child(child, MsgType::kTreeCheckpoint,
                    oob::encode_tree_round({tree_round_->round, flags_ & oob::kCrTerminate}));
  }
  log::debug("checkpoint %llu: spawn tree round %llu with %zu spawned job(s)", static_cast<unsigned long long>(seq),
             static_cast<unsigned long long>(tree_round_->round), tree_round_->children.size());
}

void CheckpointCoordinator::tree_maybe_go() {
  TreeRound& t = *tree_round_;
  if (phase_ != Phase::kDrain || !t.local_drained) return;
  for (const auto& [child, state] : t.children)
    if (state == TreeRound::Child::kAsked) return;
  if (!t.from_parent) {
    for (const auto& [child, state] : t.children) tree_->to_child(child, MsgType::kTreeGo, oob::encode_tree_round({t.round, 0}));
    go();
    return;
  }
  if (!t.drained_sent) {
    t.drained_sent = true;
    tree_->to_parent(MsgType::kTreeDrained, oob::encode_tree_round({t.round, 0}));
  }
}

void CheckpointCoordinator::on_tree_checkpoint(const oob::TreeRoundMsg& m) {
  if (app_mode()) return app_request({0, false}, /*for_parent=*/true);  // a line of its own (app_tree.cpp)
  auto decline = [&](const std::string& why) {
    host_.say("checkpoint of the spawn tree refused here: " + why);
    tree_->to_parent(MsgType::kTreeDone, oob::encode_tree_done({m.round, 0, "", "job " + spec_.job_id + ": " + why}));
  };
  if (in_progress()) return decline("a checkpoint or migration of this job is under way");
  tree_round_.emplace(TreeRound{m.round, /*from_parent=*/true});
  if (Status s = refusal(); !s.ok()) {
    tree_round_.reset();
    return decline(s.message());
  }
  request({0, false}, m.flags & oob::kCrTerminate, "the job that spawned this one");
}

void CheckpointCoordinator::on_tree_go(uint64_t round) {
  if (!tree_round_ || tree_round_->round != round || phase_ != Phase::kDrain) {
    log::debug("TREE_GO %llu outside its round; ignored", static_cast<unsigned long long>(round));
    return;
  }
  for (const auto& [child, state] : tree_round_->children)
    tree_->to_child(child, MsgType::kTreeGo, oob::encode_tree_round({round, 0}));
  go();
}

void CheckpointCoordinator::on_tree_abort(uint64_t round, const std::string& reason) {
  if (!tree_round_ || tree_round_->round != round) return;
  const std::string why = "the job that spawned this one aborted the checkpoint: " + reason;
  if (phase_ == Phase::kWaitReady) {
    tree_abort_children(why);
    fail_waiters(why);
    reset();
  } else if (phase_ == Phase::kRequested || phase_ == Phase::kDrain) {
    abort_checkpoint(why);
  }
}

void CheckpointCoordinator::tree_abort_children(const std::string& reason) {
  if (!tree_round_) return;
  for (const auto& [child, state] : tree_round_->children)
    tree_->to_child(child, MsgType::kTreeAbort, oob::encode_tree_done({tree_round_->round, 0, "", reason}));
}

void CheckpointCoordinator::on_child_drained(pid_t child, uint64_t round) {
  if (!tree_round_ || tree_round_->round != round) return;
  auto it = tree_round_->children.find(child);
  if (it == tree_round_->children.end() || it->second != TreeRound::Child::kAsked) return;
  it->second = TreeRound::Child::kDrained;
  tree_maybe_go();
}

void CheckpointCoordinator::on_child_done(pid_t child, const oob::TreeDoneMsg& m) {
  if (app_mode()) return app_child_line(child, m);  // round: the line's epoch
  if (!tree_round_ || tree_round_->round != m.round) return;
  auto it = tree_round_->children.find(child);
  if (it == tree_round_->children.end() || it->second == TreeRound::Child::kDone) return;
  it->second = TreeRound::Child::kDone;
  if (!m.ok) {
    const std::string why = "spawned job (launcher pid " + std::to_string(child) + "): " + m.reason;
    if (phase_ == Phase::kGo)
      after_go_failure(why);
    else
      abort_checkpoint(why);
    return;
  }
  tree_round_->snapshots.push_back(m.snapshot);
  if (phase_ == Phase::kGo) maybe_finish_go();
}

void CheckpointCoordinator::on_child_lost(pid_t child, const std::string& why) {
  if (app_mode()) return app_child_ended(child, why);
  if (!tree_round_) return;
  auto it = tree_round_->children.find(child);
  if (it == tree_round_->children.end() || it->second == TreeRound::Child::kDone) return;
  on_child_done(child, {tree_round_->round, 0, "", why + " during the checkpoint"});
}

bool CheckpointCoordinator::tree_children_done() const {
  if (!tree_round_) return true;
  for (const auto& [child, state] : tree_round_->children)
    if (state != TreeRound::Child::kDone) return false;
  return true;
}

Status CheckpointCoordinator::tree_list_children(const std::string& dir) const {
  if (!tree_round_) return Status::Ok();
  // Part of the snapshot (hashed in COMMITTED; launcher/spawn_tree.h).
  if (!tree_round_->snapshots.empty())
    LZ_RETURN_IF_ERROR(write_snapshot_list(dir, kSpawnedFile, tree_round_->snapshots));
  if (tree_round_->from_parent) LZ_RETURN_IF_ERROR(write_snapshot_list(dir, kSpawnedByFile, {tree_->parent_job()}));
  return Status::Ok();
}

void CheckpointCoordinator::tree_committed(const std::string& path) {
  if (tree_round_ && tree_round_->from_parent)
    tree_->to_parent(MsgType::kTreeDone, oob::encode_tree_done({tree_round_->round, 1, path, ""}));
}

void CheckpointCoordinator::tree_failed(const std::string& reason) {
  if (tree_round_ && tree_round_->from_parent)
    tree_->to_parent(MsgType::kTreeDone,
                     oob::encode_tree_done({tree_round_->round, 0, "", "job " + spec_.job_id + ": " + reason}));
}

}  // namespace lz::launcher
