// Names of transport/shm's files in the backing directory:
//
//   lz-shm.<job>.<pidns>.<pid>.<rank>.<generation>.seg    receive segment
//   lz-shm.<job>.<pidns>.<pid>.<rank>.<generation>.bell   doorbell FIFO
//
// <job> is the launcher's LZ_JOB_ID (sanitised) so a listing shows whose files
// they are; <pidns> (the inode of the creator's PID namespace) and <pid> let
// any later rank prove the creator is gone and remove what a crashed job left
// behind (sweep_stale). <generation> counts re-creations in one process (a
// checkpoint releases segments; continue/restart creates new ones).
// runtime/userns's run_in_pid_namespace() reads the same form in
// /dev/shm ("lz-shm.", then <pidns> after the job) to remove a finished
// namespace's names: change the two together.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lz::transport::shm {

struct SegmentName {
  std::string job;
  uint64_t pidns = 0;
  pid_t pid = 0;
  int rank = 0;
  uint32_t generation = 0;

  // This process's name for `rank` and `generation`.
  static SegmentName for_this_process(int rank, uint32_t generation);
  // Parses a file name (with or without a suffix); nullopt if not ours.
  static std::optional<SegmentName> parse(std::string_view file_name);

  std::string stem() const;  // without suffix
  std::string segment_path(const std::string& dir) const { return dir + "/" + stem() + ".seg"; }
  std::string doorbell_path(const std::string& dir) const { return dir + "/" + stem() + ".bell"; }
};

// Inode of this process's PID namespace (0 if /proc is not mounted).
uint64_t current_pid_namespace();

// Removes files of `dir` named by SegmentName whose creator is provably gone:
// same PID namespace as ours, same owner uid, and the pid no longer exists
// or is ours (called only while this process has no segment of its own:
// before init() and a restart make theirs). Returns how many were removed.
// Never fails (logs at debug level).
int sweep_stale(const std::string& dir);

}  // namespace lz::transport::shm
