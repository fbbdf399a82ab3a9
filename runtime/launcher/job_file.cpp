#include "launcher/job_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "lazarus/log.h"

namespace lz::launcher {
namespace {

// mkdir -p with mode 0700 for the parts we create; the last one must be ours.
Status make_private_dir(const std::string& path) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoError("mkdir " + cur, errno);
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return ErrnoError("stat " + path, errno);
  if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
    return PermissionDenied(path + " is not a directory owned by this user; not writing the job registry there");
  if ((st.st_mode & 077) != 0) chmod(path.c_str(), 0700);
  return Status::Ok();
}

Status write_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return ErrnoError("create " + tmp, errno);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return ErrnoError("write " + tmp, e);
    }
    off += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return ErrnoError("rename " + tmp, e);
  }
  return Status::Ok();
}

}  // namespace

std::string JobFile::directory() {
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && *xdg == '/' && access(xdg, W_OK) == 0) return std::string(xdg) + "/lazarus/jobs";
  return "/tmp/lazarus-" + std::to_string(getuid()) + "/jobs";
}

Status JobFile::ensure_directory() { return make_private_dir(directory()); }

StatusOr<JobFile> JobFile::create(const std::string& job_id, const std::string& json) {
  const std::string dir = directory();
  LZ_RETURN_IF_ERROR(make_private_dir(dir));
  JobFile f(dir + "/" + job_id + ".json");
  LZ_RETURN_IF_ERROR(write_atomically(f.path_, json));
  return f;
}

Status JobFile::update(const std::string& json) { return write_atomically(path_, json); }

JobFile::~JobFile() {
  if (!path_.empty() && unlink(path_.c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove job registry file %s: %s", path_.c_str(), std::strerror(errno));
}

}  // namespace lz::launcher
