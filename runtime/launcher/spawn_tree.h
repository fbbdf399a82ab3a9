// SpawnTree: this launcher's place in the tree of jobs that MPI_Comm_spawn
// made (oob/tree_messages.h has the protocol). It holds the link to the
// launcher that started this job (when one did: LZ_SPAWN_LINK_FD) and one
// link per spawned job that still runs, and
//   - routes BRIDGE_FENCE / BRIDGE_TABLE: a non-root launcher forwards every
//     contribution up and hands the table that comes back to whoever
//     contributed (its ranks, its child links); the root collects each
//     bridge's contributions and answers once every member contributed
//     or was found gone by one that did (an empty entry for it);
//   - hands the tree's checkpoint messages to its Handler (the job's
//     CheckpointCoordinator), which sends its own through to_parent() and
//     to_children().
// A link that closes is reported to the Handler (on_child_lost) and dropped
// at the next loop turn (never inside its own callback).
//
//   SpawnTree tree(loop, [&](int rank, oob::MsgType t, const std::string& p) { server.send(rank, t, p); });
//   tree.adopt_parent_from_env();
//   tree.set_handler(&coordinator);
//   ... on SPAWN:    tree.add_child(pid, std::move(parent_end));
//   ... a rank's BRIDGE_FENCE:  tree.on_rank_fence(rank, payload);
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "launcher/event_loop.h"
#include "launcher/spawn_link.h"
#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/tree_messages.h"

namespace lz::launcher {

// A snapshot of a job in a spawn tree holds, beside its ranks' directories,
// kSpawnedFile (the committed snapshots of the jobs it spawned, one path a
// line, restarted with it) and, for a spawned job, kSpawnedByFile (the job
// id of the job that spawned it, which alone may restart it). Written by the
// CheckpointCoordinator before the commit, so COMMITTED hashes them.
inline constexpr const char* kSpawnedFile = "spawned";
inline constexpr const char* kSpawnedByFile = "spawned_by";
// The lines of `snapshot_dir`/`name` without empty ones (none when there is no such file).
std::vector<std::string> read_snapshot_list(const std::string& snapshot_dir, const char* name);
// Writes `lines` into `snapshot_dir`/`name` (a snapshot being taken).
Status write_snapshot_list(const std::string& snapshot_dir, const char* name, const std::vector<std::string>& lines);

class SpawnTree {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // From the parent.
    virtual void on_tree_checkpoint(const oob::TreeRoundMsg& m) = 0;
    virtual void on_tree_go(uint64_t round) = 0;
    virtual void on_tree_abort(uint64_t round, const std::string& reason) = 0;
    // From a child (named by its launcher's pid).
    virtual void on_child_drained(pid_t child, uint64_t round) = 0;
    virtual void on_child_done(pid_t child, const oob::TreeDoneMsg& m) = 0;
    virtual void on_child_lost(pid_t child, const std::string& why) = 0;
  };
  using ToRank = std::function<void(int rank, oob::MsgType type, const std::string& payload)>;
  // Ends the job: a link broke the protocol.
  using Fail = std::function<void(const std::string& why)>;

  SpawnTree(EventLoop& loop, ToRank to_rank, Fail fail);
  ~SpawnTree();

  // Takes the parent link named by LZ_SPAWN_LINK_FD and the parent's job
  // id (LZ_SPAWN_PARENT_JOB), and removes both variables, so that nothing
  // this launcher starts inherits them. Ok without them: this job is a root.
  Status adopt_parent_from_env();
  void set_handler(Handler* h) { handler_ = h; }
  // A spawned job's launcher `child` and this launcher's end of its link.
  void add_child(pid_t child, oob::Fd fd);
  // The child's launcher ended.
  void drop_child(pid_t child);

  bool has_parent() const { return parent_ != nullptr; }
  // The job id of the job that spawned this one (LZ_SPAWN_PARENT_JOB).
  const std::string& parent_job() const { return parent_job_; }
  // A parent, or a child now or before (the ranks may hold bridges to it).
  bool in_tree() const { return parent_ != nullptr || ever_children_; }
  std::vector<pid_t> children() const;
  void to_parent(oob::MsgType type, const std::string& payload);
  void to_child(pid_t child, oob::MsgType type, const std::string& payload);

  // A rank's BRIDGE_FENCE (a malformed one fails the job).
  void on_rank_fence(int rank, const std::string& payload);

 private:
  struct Contributor {
    int rank = -1;      // a rank of this job, or
    pid_t child = -1;   // a child link
  };
  struct Pending {
    uint32_t members = 0;
    std::map<uint32_t, std::string> entries;  // root only
    std::set<uint32_t> gone;                  // root only: members some member found gone
    std::vector<Contributor> to;
  };
  void on_parent_frame(oob::Frame& f);
  void on_child_frame(pid_t child, oob::Frame& f);
  void on_fence(const Contributor& from, const std::string& payload);
  void on_table(const std::string& payload);
  void answer(const std::string& key, Pending& p, const oob::BridgeTableMsg& table);

  EventLoop& loop_;
  ToRank to_rank_;
  Fail fail_;
  Handler* handler_ = nullptr;
  std::unique_ptr<SpawnLink> parent_;
  std::string parent_job_;
  std::map<pid_t, std::unique_ptr<SpawnLink>> children_;
  bool ever_children_ = false;
  std::vector<std::unique_ptr<SpawnLink>> closed_;  // dropped at the next loop turn
  std::map<std::string, Pending> fences_;           // by bridge key
};

}  // namespace lz::launcher
