// The capabilities of this process, read and narrowed with capget/capset
// (no libcap): what a cr=criu job's processes hold in its user namespace
// (job_namespace.h).
//
//   if (!userns::checkpoint_capable()) ...   // root, or CAP_CHECKPOINT_RESTORE
//   userns::keep_only({kCapSysAdmin, kCapCheckpointRestore}, {kCapCheckpointRestore});
#pragma once

#include <initializer_list>

#include "lazarus/status.h"

namespace lz::userns {

constexpr int kCapSysAdmin = 21;
constexpr int kCapCheckpointRestore = 40;  // Linux >= 5.9

// Whether `cap` is in this process's effective set (capabilities count in
// the user namespace the process is in, and those it owns).
bool has_effective(int cap);

// Root, or CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN effective: what CRIU
// needs to dump and restore this process's own kind.
bool checkpoint_capable();

// Drops every capability but `keep` from the permitted and effective sets
// and makes `pass_on` (a subset of keep) inheritable and ambient, so that
// the programs this process executes hold exactly `pass_on`.
Status keep_only(std::initializer_list<int> keep, std::initializer_list<int> pass_on);

}  // namespace lz::userns
