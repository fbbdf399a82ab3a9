#include "lazarus/procfiles/file_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

namespace lz::procfiles {
namespace {

std::string proc(pid_t pid, const std::string& rest) { return "/proc/" + std::to_string(pid) + "/" + rest; }

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return {};
  return std::string(buf, static_cast<size_t>(n));
}

std::mutex g_runtime_mutex;
std::vector<std::string>& runtime_patterns() {
  static std::vector<std::string> patterns;
  return patterns;
}

// What CRIU saves itself, or what is not a file of the program's.
bool ignored_path(const std::string& p) {
  if (is_runtime_file(p)) return true;
  if (p.empty() || p[0] != '/') return true;  // pipe:[..], socket:[..], anon_inode:..
  if (p.rfind("/memfd:", 0) == 0) return true;
  if (p.size() > 10 && p.compare(p.size() - 10, 10, " (deleted)") == 0) return true;
  if (p.rfind("/proc/", 0) == 0 || p.rfind("/sys/", 0) == 0) return true;
  if (p.rfind("/dev/", 0) == 0 && p.rfind("/dev/shm/", 0) != 0) return true;
  return false;
}

struct FdInfo {
  uint64_t pos = 0;
  int flags = 0;
};

FdInfo fd_info(pid_t pid, int fd) {
  FdInfo i;
  std::ifstream in(proc(pid, "fdinfo/" + std::to_string(fd)));
  std::string key;
  while (in >> key) {
    std::string value;
    in >> value;
    if (key == "pos:")
      i.pos = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "flags:")
      i.flags = static_cast<int>(std::strtol(value.c_str(), nullptr, 8));
  }
  return i;
}

bool writes(int flags) { return (flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR; }

class Collector {
 public:
  explicit Collector(const ScanOptions& o) : o_(o) {}

  void add(const std::string& path, const struct stat& st, Holder h, bool written, bool mapped) {
    auto key = std::make_pair(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
    auto [it, fresh] = by_id_.try_emplace(key, records_.size());
    if (fresh) {
      FileRecord f;
      f.path = path;
      f.size = static_cast<uint64_t>(st.st_size);
      f.dev = key.first;
      f.ino = key.second;
      f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      f.mode = st.st_mode;
      records_.push_back(std::move(f));
    }
    FileRecord& f = records_[it->second];
    f.written = f.written || written;
    f.mapped_shared = f.mapped_shared || mapped;
    f.holders.push_back(std::move(h));
  }

  std::vector<FileRecord> finish() {
    for (FileRecord& f : records_) decide(f);
    return std::move(records_);
  }

 private:
  void decide(FileRecord& f) const {
    const std::string limit = "cr_files_copy_max (" + std::to_string(o_.copy_max) + " bytes)";
    if (!f.written) {
      f.action = Action::kCheck;
    } else if (o_.policy == Policy::kKeep) {
      f.action = Action::kKeep;
    } else if (f.mapped_shared) {
      // Pages written through a shared mapping change the file in place:
      // only a copy takes it back.
      if (f.size <= o_.copy_max) {
        f.action = Action::kCopy;
        if (o_.policy != Policy::kCopy) f.note = "mapped shared and written: copied, as a truncation cannot undo it";
      } else {
        f.action = Action::kTruncate;
        f.note = "mapped shared, larger than " + limit +
                 ": not copied, so what is changed in place after the "
                 "checkpoint stays";
      }
    } else if (o_.policy == Policy::kCopy) {
      if (f.size <= o_.copy_max) {
        f.action = Action::kCopy;
      } else {
        f.action = Action::kTruncate;
        f.note = "larger than " + limit + ": truncated instead of copied";
      }
    } else {
      f.action = Action::kTruncate;
    }
  }

  const ScanOptions& o_;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_id_;
  std::vector<FileRecord> records_;
};

void scan_fds(pid_t pid, bool is_root, const ScanOptions& o, Collector& c) {
  DIR* d = opendir(proc(pid, "fd").c_str());
  if (d == nullptr) return;
  std::vector<int> fds;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    fds.push_back(static_cast<int>(fd));
  }
  closedir(d);
  std::sort(fds.begin(), fds.end());
  for (int fd : fds) {
    if (is_root && std::find(o.skip_fds.begin(), o.skip_fds.end(), fd) != o.skip_fds.end()) continue;
    const std::string link = proc(pid, "fd/" + std::to_string(fd));
    const std::string path = read_link(link);
    if (ignored_path(path) || (o.skip_path && o.skip_path(path))) continue;
    struct stat st {};
    if (stat(link.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    FdInfo i = fd_info(pid, fd);
    Holder h;
    h.pid = pid;
    h.fd = fd;
    h.flags = i.flags;
    h.pos = i.pos;
    c.add(path, st, std::move(h), writes(i.flags), false);
  }
}

void scan_maps(pid_t pid, const ScanOptions& o, Collector& c) {
  std::ifstream in(proc(pid, "maps"));
  std::string line;
  std::map<std::pair<std::string, std::string>, bool> seen;  // (path, perms) once per process
  while (std::getline(in, line)) {
    // "start-end perms offset dev inode   path"
    char perms[8] = {};
    unsigned long long inode = 0;
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%*x-%*x %7s %*x %*x:%*x %llu %n", perms, &inode, &path_at) < 2) continue;
    if (perms[3] != 's' || inode == 0 || path_at <= 0 || static_cast<size_t>(path_at) >= line.size()) continue;
    const std::string path = line.substr(static_cast<size_t>(path_at));
    if (ignored_path(path) || (o.skip_path && o.skip_path(path))) continue;
    if (!seen.emplace(std::make_pair(path, std::string(perms)), true).second) continue;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != inode) continue;
    Holder h;
    h.pid = pid;
    h.map = perms;
    c.add(path, st, std::move(h), perms[1] == 'w', true);
  }
}

// Copies `size` bytes from `src` to the new file `dst` and fsyncs it.
Status copy_bytes(int src, int dst, uint64_t size, const std::string& what) {
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = copy_file_range(src, nullptr, dst, nullptr, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) break;
    if (n < 0) return ErrnoError("copying " + what, errno);
    if (n == 0)
      return DataLoss("copying " + what + ": it ended after " + std::to_string(done) + " of its " +
                      std::to_string(size) + " bytes");
    done += static_cast<uint64_t>(n);
  }
  char buf[1 << 16];
  while (done < size) {
    ssize_t n = pread(src, buf, std::min<uint64_t>(sizeof buf, size - done), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("reading " + what, errno);
    if (n == 0)
      return DataLoss("copying " + what + ": it ended after " + std::to_string(done) + " of its " +
                      std::to_string(size) + " bytes");
    for (ssize_t off = 0; off < n;) {
      ssize_t w = pwrite(dst, buf + off, static_cast<size_t>(n - off), static_cast<off_t>(done + off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return ErrnoError("writing the copy of " + what, errno);
      off += w;
    }
    done += static_cast<uint64_t>(n);
  }
  if (fsync(dst) != 0) return ErrnoError("fsync of the copy of " + what, errno);
  return Status::Ok();
}

}  // namespace

void add_runtime_files(const std::string& pattern) {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  auto& p = runtime_patterns();
  if (std::find(p.begin(), p.end(), pattern) == p.end()) p.push_back(pattern);
}

bool is_runtime_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_runtime_mutex);
  for (const std::string& p : runtime_patterns())
    if (fnmatch(p.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
  return false;
}

std::vector<pid_t> process_tree(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parent_of;  // (pid, ppid)
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end != '\0') continue;
      std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
      std::string stat;
      std::getline(in, stat);
      const size_t close = stat.rfind(')');  // comm may hold spaces and parentheses
      if (close == std::string::npos) continue;
      char state = 0;
      int ppid = 0;
      if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2)
        parent_of.emplace_back(static_cast<pid_t>(pid), static_cast<pid_t>(ppid));
    }
    closedir(d);
  }
  std::vector<pid_t> tree = {root};
  for (size_t i = 0; i < tree.size(); ++i)
    for (const auto& [pid, ppid] : parent_of)
      if (ppid == tree[i]) tree.push_back(pid);
  return tree;
}

StatusOr<ProcessFiles> scan_process(pid_t root, const ScanOptions& o) {
  if (access(proc(root, "fd").c_str(), F_OK) != 0) {
    if (errno == ENOENT) return NotFound("process " + std::to_string(root) + " does not exist");
    return ErrnoError("cannot read the descriptors of process " + std::to_string(root), errno);
  }
  ProcessFiles pf;
  pf.pid = root;
  pf.cwd = read_link(proc(root, "cwd"));
  pf.policy = o.policy;
  pf.copy_max = o.copy_max;
  Collector c(o);
  const std::vector<pid_t> pids = o.children ? process_tree(root) : std::vector<pid_t>{root};
  for (pid_t pid : pids) {
    scan_fds(pid, pid == root, o, c);
    scan_maps(pid, o, c);
  }
  pf.files = c.finish();
  return pf;
}

Status keep_copies(ProcessFiles& pf, int dir_fd) {
  int copies = -1;
  int n = 0;
  Status result = Status::Ok();
  for (FileRecord& f : pf.files) {
    if (f.action != Action::kCopy) continue;
    if (copies < 0) {
      if (mkdirat(dir_fd, kCopyDir, 0700) != 0 && errno != EEXIST)
        return ErrnoError(std::string("cannot create ") + kCopyDir, errno);
      copies = openat(dir_fd, kCopyDir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (copies < 0) return ErrnoError(std::string("cannot open ") + kCopyDir, errno);
    }
    // The holder's own descriptor reaches the very file it holds, whatever
    // happened to its path; a mapping only has the path.
    int src = -1;
    for (const Holder& h : f.holders) {
      if (h.fd < 0) continue;
      src = open(proc(h.pid, "fd/" + std::to_string(h.fd)).c_str(), O_RDONLY | O_CLOEXEC);
      if (src >= 0) break;
    }
    if (src < 0) src = open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (src < 0) {
      result = ErrnoError("cannot read " + f.path + " to keep its copy", errno);
      break;
    }
    const std::string name = std::to_string(n++);
    int dst = openat(copies, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (dst < 0) {
      result = ErrnoError(std::string("cannot create ") + kCopyDir + "/" + name, errno);
      close(src);
      break;
    }
    result = copy_bytes(src, dst, f.size, f.path);
    close(src);
    if (close(dst) != 0 && result.ok()) result = ErrnoError("closing the copy of " + f.path, errno);
    if (!result.ok()) break;
    f.copy = std::string(kCopyDir) + "/" + name;
  }
  if (copies >= 0) {
    if (result.ok() && fsync(copies) != 0) result = ErrnoError(std::string("fsync of ") + kCopyDir, errno);
    close(copies);
  }
  return result;
}

}  // namespace lz::procfiles
