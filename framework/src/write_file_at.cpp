#include "lazarus/write_file_at.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace lz {

Status write_file_at(int dir_fd, const std::string& name, std::string_view text, mode_t mode) {
  const std::string tmp = "." + name + ".tmp";
  int fd = openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("cannot create " + tmp, errno);
  Status s = Status::Ok();
  for (size_t off = 0; off < text.size();) {
    ssize_t w = write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      s = ErrnoError("cannot write " + name, w < 0 ? errno : EIO);
      break;
    }
    off += static_cast<size_t>(w);
  }
  if (s.ok() && fsync(fd) != 0) s = ErrnoError("cannot write " + name, errno);
  if (close(fd) != 0 && s.ok()) s = ErrnoError("cannot write " + name, errno);
  if (s.ok() && renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) s = ErrnoError("cannot rename " + tmp, errno);
  if (!s.ok()) unlinkat(dir_fd, tmp.c_str(), 0);
  return s;
}

}  // namespace lz
