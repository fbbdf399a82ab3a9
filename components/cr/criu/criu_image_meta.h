// What Lazarus records beside the CRIU images of one process, so that a
// restore can reconnect the process and refuse a damaged image clearly.
//
// CRIU records every open file by what it pointed to at dump time: a pipe by
// inode, a file by path. Those are often gone at restore time (the pipe to a
// launcher that has exited, a log file that has grown, the image directory
// itself after the snapshot store renamed it), and the restore then fails. The
// meta file keeps, for stdin/stdout/stderr and for the images-directory
// descriptor, the identifier CRIU will look for, so the restorer can pass its
// own descriptors with `--inherit-fd fd[N]:<key>`.
//
//   lazarus-criu.meta   written by the dumping process just before the dump
//   lazarus-criu.files  written after a dump the process survived: every image
//                       file with its size (a truncated image is refused by name)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::cr::criu {

inline constexpr const char* kMetaFile = "lazarus-criu.meta";
inline constexpr const char* kFilesFile = "lazarus-criu.files";

// One descriptor of the dumped process that a restorer may have to supply.
struct FdKey {
  int fd = -1;
  // How CRIU names the resource for --inherit-fd: "pipe:[123]", "socket:[45]",
  // or a path without its leading '/' ("." for "/"); empty when the resource
  // cannot be inherited (a terminal: --shell-job reconnects it; anon inodes).
  std::string key;
  std::string kind;    // "pipe", "socket", "file", "tty", "other"
  std::string target;  // readlink(/proc/self/fd/N) at dump time, for messages
};

struct ImageMeta {
  int format = 1;
  pid_t pid = 0;
  std::string comm;           // /proc/self/comm
  bool leave_running = true;  // false: CRIU killed the process after the dump
  std::vector<FdKey> stdio;   // fds 0, 1, 2 (those open at dump time)
  FdKey images_dir;           // the descriptor libcriu named the image directory with
  FdKey restart_channel;      // LocalSnapshot::restart_fd (key empty when there was none)
};

// Describes descriptor `fd` of the calling process.
FdKey describe_own_fd(int fd);

// The meta of the calling process about to be dumped through `dir_fd`.
ImageMeta current_process_meta(int dir_fd, bool leave_running, int restart_fd = -1);

// Writes/reads kMetaFile in the directory `dir_fd` (atomically: temporary name
// and rename, mode 0600). read_meta() names `dir_path` in its errors.
Status write_meta(int dir_fd, const ImageMeta& meta);
StatusOr<ImageMeta> read_meta(const std::string& dir_path);

// Records the size of every regular file in the directory (kFilesFile).
Status write_file_list(int dir_fd);
// Checks the directory against kFilesFile: every listed file exists with its
// size. kNotFound when there is no list; kDataLoss naming the first bad file.
Status verify_file_list(const std::string& dir_path);

}  // namespace lz::cr::criu
