// Payloads of the spawn-tree messages (oob/frame.h, "dynamic processes
// 128..143"): the jobs a job started with MPI_Comm_spawn are checkpointed
// and restarted with it, as one job.
//
// A spawned job's launcher is a child process of the spawning job's launcher
// and talks to it over a socketpair it inherits (LZ_SPAWN_LINK_FD), in the
// frames of oob/frame.h. The launchers form a tree; its root is the job that
// no job spawned. Two conversations use it:
//
// 1. A checkpoint of the tree, started only at the root (a spawned job
//    refuses a checkpoint of its own: its bridges would never drain):
//
//   parent launcher                         child launcher
//   TREE_CHECKPOINT{round, flags}     ->    runs a round of its own (its
//                                           store, its seq) with kCrSpawnTree
//                                     <-    TREE_DRAINED{round}  every rank
//                                           of it and of its subtree drained
//   TREE_GO{round} | TREE_ABORT{..}   ->    (once the whole tree drained)
//                                     <-    TREE_DONE{round, ok, snapshot}
//
//    A rank's bridges (p2p/bridge.h) drain in-band during the round: each
//    rank sends every peer of another job a marker carrying what it sent
//    that peer, and receives until it has what the peer's marker says. At GO
//    the bridges' transports close with the world's, and after the round
//    they are re-opened through (2).
//
// 2. A bridge's address exchange after a checkpoint (continue or restart):
//    every member of the bridge sends BRIDGE_FENCE to its launcher, which
//    forwards it up the tree; the root, once it holds every member's
//    entries, answers with BRIDGE_TABLE, which goes back down the same way to
//    every member.
//
//   rank -> launcher (-> parent ...)     BRIDGE_FENCE{key, member, members, entries, gone}
//   (... launcher ->) rank               BRIDGE_TABLE{key, error, entries by member}
//
// Bounds-checked decoders that follow oob/messages.h's rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::oob {

inline constexpr size_t kMaxBridgeKeyBytes = 256;
inline constexpr uint32_t kMaxBridgeMembers = 1u << 20;
inline constexpr size_t kMaxBridgeEntryBytes = 1u << 20;  // one member's addresses
inline constexpr size_t kMaxTreeTextBytes = 4096;         // a snapshot path or a reason

// The environment variables that name a spawned launcher's end of the
// link, and the job id of the job that spawned it.
inline constexpr const char* kSpawnLinkFdEnv = "LZ_SPAWN_LINK_FD";
inline constexpr const char* kSpawnParentJobEnv = "LZ_SPAWN_PARENT_JOB";

// BRIDGE_FENCE: rank -> launcher, launcher -> parent launcher.
struct BridgeFenceMsg {
  std::string key;      // the bridge and its epoch: the same at every member, opaque to launchers
  uint32_t member = 0;  // this contribution's member index
  uint32_t members = 0; // the bridge's size (every contribution of a key names the same)
  std::string entries;  // the member's encoded addresses
  // Members this one found gone (their job ended: a marker or connection
  // to them was refused). They will never fence; the root answers without
  // them, each with an empty entry, once every other member has fenced.
  std::vector<uint32_t> gone;
};

// BRIDGE_TABLE: root launcher -> child launcher -> rank.
struct BridgeTableMsg {
  std::string key;
  std::string error;                 // non-empty: the exchange failed, and why
  std::vector<std::string> entries;  // by member index (empty when error is set)
};

// TREE_CHECKPOINT, TREE_DRAINED, TREE_GO: a round of the root's.
struct TreeRoundMsg {
  uint64_t round = 0;  // the root's checkpoint sequence number
  uint32_t flags = 0;  // kCr* (oob/messages.h): kCrTerminate for a --term checkpoint
};

// TREE_ABORT (parent -> child) and TREE_DONE (child -> parent).
struct TreeDoneMsg {
  uint64_t round = 0;
  int32_t ok = 0;         // 1: committed; 0: failed or aborted (reason)
  std::string snapshot;   // when ok: the child job's committed snapshot directory
  std::string reason;
};

std::string encode_bridge_fence(const BridgeFenceMsg& m);
Status decode_bridge_fence(std::string_view p, BridgeFenceMsg* out);
std::string encode_bridge_table(const BridgeTableMsg& m);
Status decode_bridge_table(std::string_view p, BridgeTableMsg* out);
std::string encode_tree_round(const TreeRoundMsg& m);
Status decode_tree_round(std::string_view p, TreeRoundMsg* out);
std::string encode_tree_done(const TreeDoneMsg& m);
Status decode_tree_done(std::string_view p, TreeDoneMsg* out);

}  // namespace lz::oob
