// The files of a process, recorded while CRIU holds it frozen.
//
// A rank's application threads may be writing outside MPI while its CR
// thread dumps it, so a record taken before the dump could disagree with the
// image. CRIU runs "action scripts" at fixed points of a dump; at post-dump
// the image is complete and the process tree is still frozen (CRIU resumes or
// kills it only afterwards). The dumping process therefore leaves a request
// and a CRIU configuration naming the hook (lazarus-criu-hook, in
// <libexec>/lazarus) in its image directory, and `criu swrk` is started with
// CRIU_CONFIG_FILE pointing at it; the hook records the tree's files
// (lazarus/procfiles), keeps the copies the policy asks for, and removes
// CRIU's own size checks of those files from files.img (criu_files_image.h).
// A failing hook fails the dump: CRIU then lets the process go on, and the
// reason is in kFilesError for the dumping process to report.
//
//   in the dumping process, before criu_dump():
//     LZ_RETURN_IF_ERROR(write_files_request(dir_fd, {policy, copy_max, {dir_fd}}, hook));
//     env: CRIU_CONFIG_FILE=<dir>/lazarus-criu.conf
//   in the hook (CRTOOLS_SCRIPT_ACTION=post-dump, CRTOOLS_INIT_PID, CRTOOLS_IMAGE_DIR):
//     return hook_main();
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/procfiles/file_record.h"
#include "lazarus/status.h"

namespace lz::cr::criu {

inline constexpr const char* kFilesRequest = "lazarus-files.request";
inline constexpr const char* kFilesError = "lazarus-files.error";
inline constexpr const char* kCriuConfig = "lazarus-criu.conf";
inline constexpr const char* kHookName = "lazarus-criu-hook";

struct FilesRequest {
  procfiles::Policy policy = procfiles::Policy::kTruncate;
  uint64_t copy_max = procfiles::kDefaultCopyMax;
  std::vector<int> skip_fds;  // the dumping process's own descriptors (the image directory)
};

// <libexec>/lazarus/lazarus-criu-hook beside the liblazarus in use (build
// tree or installed prefix).
std::string default_hook_path();

// Writes kFilesRequest and kCriuConfig (an action-script line naming `hook`)
// into the image directory; removes a kFilesError of an earlier attempt.
Status write_files_request(int dir_fd, const FilesRequest& request, const std::string& hook);
// The error a failed hook left in the image directory ("" when none).
std::string files_error(int dir_fd);

// The hook's work for the frozen tree rooted at `pid` whose images are in
// `dir_fd`: record, copies, files.img without CRIU's size checks.
Status record_files(pid_t pid, int dir_fd);

// main() of lazarus-criu-hook: acts on post-dump only (exit 0 otherwise).
int hook_main();

}  // namespace lz::cr::criu
