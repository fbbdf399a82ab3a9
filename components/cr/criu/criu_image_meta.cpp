#include "criu_image_meta.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "lazarus/write_file_at.h"

namespace lz::cr::criu {
namespace {

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return {};
  buf[n] = '\0';
  return buf;
}

std::string encode_fd(const FdKey& k) {
  return std::to_string(k.fd) + " " + (k.kind.empty() ? "-" : k.kind) + " " + (k.key.empty() ? "-" : k.key) + " " +
         k.target;
}

bool decode_fd(const std::string& v, FdKey* out) {
  std::istringstream in(v);
  FdKey k;
  if (!(in >> k.fd >> k.kind >> k.key)) return false;
  if (k.kind == "-") k.kind.clear();
  if (k.key == "-") k.key.clear();
  std::getline(in, k.target);
  if (!k.target.empty() && k.target[0] == ' ') k.target.erase(0, 1);
  *out = k;
  return true;
}

}  // namespace

FdKey describe_own_fd(int fd) {
  FdKey k;
  k.fd = fd;
  k.target = read_link("/proc/self/fd/" + std::to_string(fd));
  const std::string& t = k.target;
  if (t.empty()) {
    k.kind = "other";
  } else if (t.rfind("pipe:[", 0) == 0) {
    k.kind = "pipe";
    k.key = t;
  } else if (t.rfind("socket:[", 0) == 0) {
    k.kind = "socket";
    k.key = t;
  } else if (t[0] == '/') {
    struct stat st {};
    bool is_tty = fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && isatty(fd);
    if (is_tty) {
      k.kind = "tty";  // --shell-job attaches it to the restorer's terminal
    } else if (t.size() > 10 && t.compare(t.size() - 10, 10, " (deleted)") == 0) {
      k.kind = "other";
    } else {
      k.kind = "file";
      k.key = t == "/" ? "." : t.substr(1);
    }
  } else {
    k.kind = "other";
  }
  return k;
}

ImageMeta current_process_meta(int dir_fd, bool leave_running, int restart_fd) {
  ImageMeta m;
  m.pid = getpid();
  std::ifstream comm("/proc/self/comm");
  std::getline(comm, m.comm);
  m.leave_running = leave_running;
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) m.stdio.push_back(describe_own_fd(fd));
  m.images_dir = describe_own_fd(dir_fd);
  if (restart_fd >= 0) m.restart_channel = describe_own_fd(restart_fd);
  return m;
}

Status write_meta(int dir_fd, const ImageMeta& m) {
  std::ostringstream out;
  out << "# Lazarus: how to reconnect this CRIU image at restore (cr_restart, lazarus restart)\n";
  out << "format " << m.format << "\n";
  out << "pid " << m.pid << "\n";
  out << "comm " << m.comm << "\n";
  out << "leave_running " << (m.leave_running ? 1 : 0) << "\n";
  for (const auto& k : m.stdio) out << "stdio " << encode_fd(k) << "\n";
  out << "images_dir " << encode_fd(m.images_dir) << "\n";
  if (!m.restart_channel.key.empty()) out << "restart_channel " << encode_fd(m.restart_channel) << "\n";
  return write_file_at(dir_fd, kMetaFile, out.str());
}

StatusOr<ImageMeta> read_meta(const std::string& dir_path) {
  std::string path = dir_path + "/" + kMetaFile;
  std::ifstream in(path);
  if (!in) return NotFound(path + " is missing: " + dir_path + " is not a Lazarus CRIU image directory");
  ImageMeta m;
  m.format = 0;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.find(' ');
    std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    auto bad = [&] { return DataLoss(path + ":" + std::to_string(lineno) + ": malformed line `" + line + "`"); };
    if (key == "format") {
      m.format = std::atoi(value.c_str());
    } else if (key == "pid") {
      m.pid = std::atoi(value.c_str());
    } else if (key == "comm") {
      m.comm = value;
    } else if (key == "leave_running") {
      m.leave_running = value == "1";
    } else if (key == "stdio") {
      FdKey k;
      if (!decode_fd(value, &k)) return bad();
      m.stdio.push_back(k);
    } else if (key == "images_dir") {
      if (!decode_fd(value, &m.images_dir)) return bad();
    } else if (key == "restart_channel") {
      if (!decode_fd(value, &m.restart_channel)) return bad();
    }
  }
  if (m.format != 1 || m.pid <= 0) return DataLoss(path + " is corrupted (no format 1 header or no pid)");
  return m;
}

Status write_file_list(int dir_fd) {
  int fd = dup(dir_fd);
  if (fd < 0) return ErrnoError("dup", errno);
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return ErrnoError("cannot list the image directory", errno);
  }
  rewinddir(d);
  std::map<std::string, long long> sizes;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".img") != 0) continue;
    struct stat st {};
    if (fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) sizes[name] = st.st_size;
  }
  closedir(d);
  std::ostringstream out;
  out << "# Lazarus: CRIU image files and their sizes at the end of the dump\n";
  for (const auto& [name, size] : sizes) out << size << " " << name << "\n";
  return write_file_at(dir_fd, kFilesFile, out.str());
}

Status verify_file_list(const std::string& dir_path) {
  std::string list = dir_path + "/" + kFilesFile;
  std::ifstream in(list);
  if (!in) return NotFound(list + " is missing");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    long long size = -1;
    std::string name;
    if (!(ls >> size >> name) || name.find('/') != std::string::npos)
      return DataLoss(list + " is corrupted (line `" + line + "`)");
    std::string path = dir_path + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return DataLoss("image file " + path + " is missing");
    if (st.st_size != size)
      return DataLoss("image file " + path + " has " + std::to_string(st.st_size) + " bytes, the dump wrote " +
                      std::to_string(size) + " (truncated or modified)");
    ++n;
  }
  if (n == 0) return DataLoss(list + " lists no image file");
  return Status::Ok();
}

}  // namespace lz::cr::criu
