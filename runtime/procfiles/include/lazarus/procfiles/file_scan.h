// Finding the files a process tree holds, from /proc, and keeping copies.
//
// Called where the process cannot change them underneath: by cr/criu's
// post-dump hook while CRIU holds the tree frozen (so sizes and copies are
// those of the image, even with threads writing outside MPI), and by the CR
// service of a cr=app rank at its safe point.
//
//   ScanOptions o{.policy = Policy::kTruncate, .skip_fds = {images_dir_fd}};
//   LZ_ASSIGN_OR_RETURN(ProcessFiles pf, scan_process(pid, o));
//   LZ_RETURN_IF_ERROR(keep_copies(pf, dir_fd));       // the records with Action::kCopy
//   LZ_RETURN_IF_ERROR(write_process_files(dir_fd, pf));
//
// Recorded: regular files held through a descriptor, and regular files mapped
// MAP_SHARED (a /dev/shm object of the program's own is one), by the root and
// every descendant (a child started by system() or popen() writes files too).
// Not recorded: pipes, sockets, devices, directories; memfds and files deleted
// while open (CRIU saves their contents itself); private mappings (the
// program's binary and libraries); paths under /proc and /sys; the runtime's
// own (add_runtime_files).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "lazarus/procfiles/file_record.h"
#include "lazarus/status.h"

namespace lz::procfiles {

struct ScanOptions {
  Policy policy = Policy::kTruncate;
  uint64_t copy_max = kDefaultCopyMax;  // larger files are not copied (truncated instead, with a note)
  std::vector<int> skip_fds;            // descriptors of the root that are the runtime's own
  bool children = true;                 // also the root's descendants
  // Paths the caller owns (a live transport's segments under cr=app); empty: none.
  std::function<bool(const std::string& path)> skip_path;
};

// Files the runtime itself maps in a rank (a transport's shared-memory
// segments, live while a cr=app rank saves its files): never recorded. A
// component adds an fnmatch(3) pattern of the paths it (or the library it
// drives) creates, when it starts; process-wide, thread-safe, idempotent.
void add_runtime_files(const std::string& pattern);
bool is_runtime_file(const std::string& path);

// The root and its descendants, root first (from the parent pids in /proc).
std::vector<pid_t> process_tree(pid_t root);

// Errors: kNotFound when `root` does not exist; kPermissionDenied when its
// descriptors cannot be read.
StatusOr<ProcessFiles> scan_process(pid_t root, const ScanOptions& options);

// Copies every record with Action::kCopy into <dir_fd>/kCopyDir/<n> (fsynced)
// and sets its `copy`. A file that cannot be read is an error naming it.
Status keep_copies(ProcessFiles& pf, int dir_fd);

}  // namespace lz::procfiles
