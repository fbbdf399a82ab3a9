// Stale files of libfabric's shm provider. Each shm endpoint creates a
// 16 MiB region /dev/shm/<pid>:<n>:<m> and unlinks it when closed; a process
// killed with SIGKILL leaves it behind, and a process that later gets that
// pid (a CRIU restore gets its old pid back) cannot create its own region
// under the same name. We remove only files we can prove are stale and ours:
// named in the provider's pattern after a pid of this job (this process, or
// a rank's published pid) whose process no longer exists, or after this
// process's own pid while it holds no endpoint (the caller's guarantee); and
// in both cases mapped by no process we can see (a region's creator maps it
// for as long as it lives: this keeps a live process of another PID
// namespace with the same pid safe).
//
//   sweep_stale_shm_files({getpid()});   // before opening, in init()/on_restart()
#pragma once

#include <sys/types.h>

#include <vector>

namespace lz::transport::ofi {

// Removes /dev/shm/<pid>:<n>:<m> for every pid in `pids` that is this
// process (the caller holds no shm endpoint) or no longer exists. Returns
// how many files were removed.
int sweep_stale_shm_files(const std::vector<pid_t>& pids);

}  // namespace lz::transport::ofi
