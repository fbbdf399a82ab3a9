// Parameters of the snapshot store (owner "runtime"), registered by
// register_runtime_params() so the launcher, `lazarus info` and the ranks all
// know them:
//
//   snapshot_root  where job snapshot directories are created
//                  (default "~/.lazarus/snapshots")
//   cr_keep        committed snapshots kept per job after a commit (default 2;
//                  0 keeps all)
//
// Why the home directory by default: a snapshot must outlive the node it was
// taken on (restart "on the same or other hosts", ARCHITECTURE.md) and a
// reboot. /tmp is wiped at boot and /var/tmp, although persistent, is local to
// one node; the home directory is the one place that is both persistent and,
// on clusters, shared by every node. Open MPI's snapc made the same choice
// ($HOME as the global snapshot directory). Sites with a parallel file system
// point snapshot_root at it. Without a home directory the store falls back to
// /var/tmp/lazarus-<uid>.
//
//   std::string root = lz::snapshot::snapshot_root(reg.params());
//   auto store = lz::snapshot::SnapshotStore::open(root, job, lz::snapshot::store_options(reg.params()));
#pragma once

#include <string>

#include "lazarus/param_store.h"
#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::snapshot {

inline constexpr const char* kParamRoot = "snapshot_root";
inline constexpr const char* kParamKeep = "cr_keep";

// Registers the table once (a second call is a no-op).
Status register_snapshot_params(Registry& reg);

// snapshot_root with a leading "~" or "$HOME" expanded (the home directory of
// the user when HOME is unset; /var/tmp/lazarus-<uid>/snapshots when there is none).
std::string expand_snapshot_root(const std::string& text);
std::string snapshot_root(const ParamStore& params);
// The store's options from the parameters (cr_keep).
struct StoreOptions;
StoreOptions store_options(const ParamStore& params);

}  // namespace lz::snapshot
