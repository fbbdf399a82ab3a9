#include "criu_files_hook.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "criu_files_image.h"
#include "lazarus/companion_library.h"
#include "lazarus/procfiles/file_scan.h"
#include "lazarus/write_file_at.h"

namespace lz::cr::criu {
namespace {

StatusOr<std::string> read_at(int dir_fd, const char* name) {
  int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(std::string("cannot open ") + name, errno);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 && text.size() < (1 << 20)) text.append(buf, static_cast<size_t>(n));
  close(fd);
  return text;
}

StatusOr<FilesRequest> read_request(int dir_fd) {
  LZ_ASSIGN_OR_RETURN(std::string text, read_at(dir_fd, kFilesRequest));
  FilesRequest r;
  std::istringstream in(text);
  std::string key;
  while (in >> key) {
    if (key == "policy") {
      std::string v;
      in >> v;
      LZ_ASSIGN_OR_RETURN(r.policy, procfiles::parse_policy(v));
    } else if (key == "copy_max") {
      in >> r.copy_max;
    } else if (key == "skip_fd") {
      int fd = -1;
      in >> fd;
      r.skip_fds.push_back(fd);
    } else {
      return DataLoss(std::string(kFilesRequest) + ": unknown key '" + key + "'");
    }
    if (!in) return DataLoss(std::string(kFilesRequest) + ": bad value for '" + key + "'");
  }
  return r;
}

}  // namespace

std::string default_hook_path() { return lazarus_library_dir() + "/../libexec/lazarus/" + kHookName; }

Status write_files_request(int dir_fd, const FilesRequest& r, const std::string& hook) {
  if (hook.empty() || hook[0] != '/' || access(hook.c_str(), X_OK) != 0)
    return Unavailable("the post-dump hook `" + hook + "` that records a process's files is not an executable (" +
                       std::strerror(errno) + "); reinstall Lazarus or set cr_criu_hook");
  std::string req =
      std::string("policy ") + procfiles::policy_name(r.policy) + "\ncopy_max " + std::to_string(r.copy_max) + "\n";
  for (int fd : r.skip_fds) req += "skip_fd " + std::to_string(fd) + "\n";
  unlinkat(dir_fd, kFilesError, 0);
  LZ_RETURN_IF_ERROR(write_file_at(dir_fd, kFilesRequest, req));
  return write_file_at(dir_fd, kCriuConfig, "action-script " + hook + "\n");
}

std::string files_error(int dir_fd) {
  auto text = read_at(dir_fd, kFilesError);
  if (!text.ok()) return {};
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return *text;
}

Status record_files(pid_t pid, int dir_fd) {
  LZ_ASSIGN_OR_RETURN(FilesRequest req, read_request(dir_fd));
  procfiles::ScanOptions o;
  o.policy = req.policy;
  o.copy_max = req.copy_max;
  o.skip_fds = req.skip_fds;
  LZ_ASSIGN_OR_RETURN(procfiles::ProcessFiles pf, procfiles::scan_process(pid, o));
  LZ_RETURN_IF_ERROR(procfiles::keep_copies(pf, dir_fd));
  LZ_RETURN_IF_ERROR(procfiles::write_process_files(dir_fd, pf));
  std::set<std::string> paths;
  for (const auto& f : pf.files) paths.insert(f.path);
  return drop_file_validation(dir_fd, paths).status();
}

int hook_main() {
  const char* action = std::getenv("CRTOOLS_SCRIPT_ACTION");
  if (action == nullptr || std::strcmp(action, "post-dump") != 0) return 0;
  const char* pid_text = std::getenv("CRTOOLS_INIT_PID");
  const char* dir = std::getenv("CRTOOLS_IMAGE_DIR");
  if (pid_text == nullptr || dir == nullptr) {
    std::fprintf(stderr, "%s: CRTOOLS_INIT_PID or CRTOOLS_IMAGE_DIR is not set: run by CRIU only\n", kHookName);
    return 2;
  }
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    std::fprintf(stderr, "%s: cannot open the image directory %s: %s\n", kHookName, dir, std::strerror(errno));
    return 2;
  }
  Status s = record_files(static_cast<pid_t>(std::atoi(pid_text)), dir_fd);
  if (!s.ok()) {
    // CRIU's log keeps only the exit code: the dumping process reads this.
    write_file_at(dir_fd, kFilesError,
                  "recording the open files of pid " + std::string(pid_text) + ": " + s.message() + "\n")
        .ignore();
    std::fprintf(stderr, "%s: %s\n", kHookName, s.message().c_str());
  }
  close(dir_fd);
  return s.ok() ? 0 : 1;
}

}  // namespace lz::cr::criu
