#include "snapshot/durable_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "lazarus/unique_fd.h"

namespace lz::snapshot {

Status make_dir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) == 0) {
    // mkdir applies the umask; the store's modes are not negotiable.
    if (::chmod(path.c_str(), mode) != 0) return ErrnoError("chmod " + path, errno);
    return Status::Ok();
  }
  int err = errno;
  if (err != EEXIST) return ErrnoError("mkdir " + path, err);
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return ErrnoError("stat " + path, errno);
  if (!S_ISDIR(st.st_mode)) return IoError(path + " exists and is not a directory");
  if ((st.st_mode & 07777) != mode && ::chmod(path.c_str(), mode) != 0) return ErrnoError("chmod " + path, errno);
  return Status::Ok();
}

Status make_dirs(const std::string& path_in, mode_t mode) {
  std::string path = path_in;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty()) return InvalidArgument("empty directory path");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return IoError(path + " exists and is not a directory");
    return Status::Ok();
  }
  std::string parent = parent_dir(path);
  if (parent != path && parent != "." && parent != "/") LZ_RETURN_IF_ERROR(make_dirs(parent, mode));
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) return ErrnoError("mkdir " + path, errno);
  return Status::Ok();
}

Status fsync_dir(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open directory " + path, errno);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync directory " + path, errno);
  return Status::Ok();
}

Status write_file_atomic(const std::string& path, std::string_view content, mode_t mode) {
  std::string tmp = path + ".tmp";
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd.valid()) return ErrnoError("create " + tmp, errno);
    if (::fchmod(fd.get(), mode) != 0) return ErrnoError("chmod " + tmp, errno);
    size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::unlink(tmp.c_str());
        return ErrnoError("write " + tmp, err);
      }
      done += static_cast<size_t>(n);
    }
    if (::fsync(fd.get()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoError("fsync " + tmp, err);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("rename " + tmp + " to " + path, err);
  }
  return fsync_dir(parent_dir(path));
}

StatusOr<std::string> read_small_file(const std::string& path, size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    if (err == ENOENT) return NotFound(path + " does not exist");
    return ErrnoError("open " + path, err);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path, errno);
  if (!S_ISREG(st.st_mode)) return DataLoss(path + " is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return DataLoss(path + " is too large (" + std::to_string(st.st_size) + " bytes, at most " +
                    std::to_string(max_bytes) + " expected)");
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd.get(), out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read " + path, errno);
    }
    if (n == 0) break;  // shrank meanwhile: parse what is there
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

Status remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);  // never follows symlinks
  if (ec) return IoError("remove " + path + ": " + ec.message());
  return Status::Ok();
}

std::string parent_dir(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

}  // namespace lz::snapshot
