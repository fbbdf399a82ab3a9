// The files of this rank, recorded by the CR service at a save (issue: a
// restarted program's own files hold what an uninterrupted run writes).
//
// A back end that records a process's files itself, at the moment it saves
// it (cr::kCapRecordsFiles: cr/criu, from a hook while CRIU holds the rank
// frozen), needs nothing here. For the others (cr/app, whose restart re-runs
// the program: a log it reopens in append mode must not keep the re-run
// iterations) the CR service records them from the rank itself, at the safe
// point or just before the save, into the rank's snapshot directory, with
// the policy of cr_files / cr_files_copy_max. The runtime's own segments
// (the transports', registered with procfiles::add_runtime_files) are left
// out.
//
//   LZ_RETURN_IF_ERROR(record_own_files(rt.registry().params(), rank_dir));
#pragma once

#include <string>

#include "lazarus/param_store.h"
#include "lazarus/status.h"

namespace lz::rt {

Status record_own_files(const ParamStore& params, const std::string& rank_dir);

}  // namespace lz::rt
