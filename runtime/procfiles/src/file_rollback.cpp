#include "lazarus/procfiles/file_rollback.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace lz::procfiles {
namespace {

std::string ranks_text(const std::vector<int>& ranks) {
  if (ranks.size() == 1 && ranks[0] < 0) return "the process";
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  return s;
}

std::string size_change(uint64_t then, uint64_t now) {
  return std::to_string(then) + " -> " + std::to_string(now) + " bytes";
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Rewrites `path` with the copy's bytes (creating it with the recorded mode
// when it is gone), in place so that hard links and the inode stay.
Status restore_copy(const std::string& path, const std::string& copy, uint32_t mode, uint64_t size) {
  int src = open(copy.c_str(), O_RDONLY | O_CLOEXEC);
  if (src < 0) return ErrnoError("cannot read the snapshot's copy " + copy + " of " + path, errno);
  struct stat cs {};
  if (fstat(src, &cs) != 0 || static_cast<uint64_t>(cs.st_size) != size) {
    close(src);
    return DataLoss("the snapshot's copy " + copy + " of " + path + " holds " + std::to_string(cs.st_size) +
                    " bytes, the record says " + std::to_string(size));
  }
  int dst = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, mode & 07777);
  if (dst < 0) {
    int err = errno;
    close(src);
    return ErrnoError("cannot write " + path + " to restore it from the snapshot", err);
  }
  Status s = Status::Ok();
  uint64_t done = 0;
  char buf[1 << 16];
  while (s.ok() && done < size) {
    ssize_t n = pread(src, buf, std::min<uint64_t>(sizeof buf, size - done), static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      s = ErrnoError("reading " + copy, n < 0 ? errno : EIO);
      break;
    }
    for (ssize_t off = 0; off < n && s.ok();) {
      ssize_t w = pwrite(dst, buf + off, static_cast<size_t>(n - off), static_cast<off_t>(done + off));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        s = ErrnoError("writing " + path, w < 0 ? errno : EIO);
      else
        off += w;
    }
    done += static_cast<uint64_t>(n);
  }
  if (s.ok() && ftruncate(dst, static_cast<off_t>(size)) != 0) s = ErrnoError("truncating " + path, errno);
  if (s.ok() && fsync(dst) != 0) s = ErrnoError("fsync of " + path, errno);
  close(dst);
  close(src);
  return s;
}

}  // namespace

StatusOr<FileRollback> FileRollback::load(const std::string& snapshot_dir) {
  FileRollback rb;
  auto add = [&rb](int rank, const std::string& dir) -> Status {
    auto pf = read_process_files(dir);
    if (!pf.ok() && pf.status().code() == Code::kNotFound) return Status::Ok();
    if (!pf.ok()) return pf.status();
    for (const FileRecord& f : pf->files) {
      auto [it, fresh] = rb.merged_.try_emplace(f.path);
      Merged& m = it->second;
      m.ranks.push_back(rank);
      if (!fresh && m.rec.size != f.size && (m.rec.written || f.written)) m.sizes_differ = true;
      // The largest recorded state wins (what any rank may have written is
      // kept); a writer's record beats a reader's.
      const bool better = fresh || (f.written && !m.rec.written) || (f.written == m.rec.written && f.size > m.rec.size);
      if (better) {
        const bool was_written = !fresh && m.rec.written;
        m.rec = f;
        m.rec.written = f.written || was_written;
        m.copy_dir = dir;
      }
    }
    rb.ranks_.emplace(rank, std::move(*pf));
    return Status::Ok();
  };
  const std::string base = snapshot_dir.substr(snapshot_dir.find_last_of('/') + 1);
  if (access((snapshot_dir + "/" + kRecordFile).c_str(), F_OK) == 0 && base.rfind("rank.", 0) != 0) {
    LZ_RETURN_IF_ERROR(add(-1, snapshot_dir));  // one process's directory (cr_restart)
    return rb;
  }
  DIR* d = opendir(snapshot_dir.c_str());
  if (d == nullptr) return ErrnoError("cannot list " + snapshot_dir, errno);
  std::vector<std::pair<int, std::string>> dirs;
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, "rank.", 5) != 0) continue;
    char* end = nullptr;
    long r = std::strtol(e->d_name + 5, &end, 10);
    if (end == e->d_name + 5 || *end != '\0' || r < 0) continue;
    dirs.emplace_back(static_cast<int>(r), snapshot_dir + "/" + e->d_name);
  }
  closedir(d);
  std::sort(dirs.begin(), dirs.end());
  for (const auto& [r, dir] : dirs) {
    Status s = add(r, dir);
    if (!s.ok()) return s;
  }
  for (auto& [path, m] : rb.merged_) std::sort(m.ranks.begin(), m.ranks.end());
  return rb;
}

StatusOr<RollbackReport> FileRollback::apply(int rank, const RollbackOptions& o) const {
  RollbackReport report;
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return report;
  const ProcessFiles& mine = it->second;
  const std::string who = rank >= 0 ? "rank " + std::to_string(rank) : std::string("the process");
  // A problem: an error, or under `lenient` a warning.
  Status first_error = Status::Ok();
  auto problem = [&](Status s) {
    if (o.lenient)
      report.warnings.push_back(s.message());
    else if (first_error.ok())
      first_error = std::move(s);
  };

  if (!mine.cwd.empty()) {
    struct stat st {};
    if (stat(mine.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      problem(NotFound(who + "'s working directory " + mine.cwd + " does not exist here (" +
                       std::strerror(errno ? errno : ENOTDIR) + "); restart where that path exists, or create it"));
  }
  for (const FileRecord& own : mine.files) {
    const Merged& m = merged_.at(own.path);
    const FileRecord& f = m.rec;
    const std::string copy = f.copy.empty() ? std::string() : m.copy_dir + "/" + f.copy;
    const std::string holders = ranks_text(m.ranks);
    struct stat st {};
    const bool exists = stat(f.path.c_str(), &st) == 0;
    const int stat_errno = errno;
    if (o.mode == RollbackMode::kMove) {
      if (!exists)
        problem(NotFound(f.path + ", open in " + holders + ", is gone (" + std::strerror(stat_errno) +
                         "); the moved process cannot reopen it"));
      continue;
    }
    Action action = o.keep_all && f.action != Action::kCheck ? Action::kKeep : f.action;
    if (action == Action::kCopy && !exists) {
      if (Status s = restore_copy(f.path, copy, f.mode, f.size); !s.ok())
        problem(s);
      else
        report.done.push_back(f.path + ": recreated from the snapshot's copy (" + std::to_string(f.size) +
                              " bytes; it was deleted since the checkpoint)");
      continue;
    }
    if (!exists) {
      problem(NotFound(f.path + ", " + (f.written ? "written" : "read") + " by " + holders +
                       " at the checkpoint, no longer exists (" + std::strerror(stat_errno) + ")" +
                       (f.written ? std::string("; nothing in the snapshot can bring it back (cr_files=copy keeps a "
                                                "copy of each written file)")
                                  : std::string())));
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      problem(InvalidArgument(f.path + " is no longer a regular file"));
      continue;
    }
    const uint64_t now = static_cast<uint64_t>(st.st_size);
    const bool replaced = static_cast<uint64_t>(st.st_ino) != f.ino;
    const bool changed = replaced || now != f.size || mtime_ns(st) != f.mtime_ns;
    switch (action) {
      case Action::kCopy:
        // Pages written through a mapping need not change the size or the
        // modification time: the copy is put back whatever they say.
        if (Status s = restore_copy(f.path, copy, f.mode, f.size); !s.ok())
          problem(s);
        else
          report.done.push_back(f.path + ": restored from the snapshot's copy (" + size_change(now, f.size) + ")");
        break;
      case Action::kTruncate:
        if (replaced) {
          problem(DataLoss(f.path + " was replaced by another file since the checkpoint (inode " +
                           std::to_string(f.ino) + ", now " + std::to_string(st.st_ino) +
                           "); it cannot be rolled back (cr_files=copy keeps a copy, cr_files=keep leaves it)"));
        } else if (now < f.size) {
          problem(DataLoss(f.path + " shrank since the checkpoint (" + size_change(f.size, now) +
                           "); it cannot be rolled back (cr_files=copy keeps a copy, cr_files=keep leaves it)"));
        } else if (now > f.size) {
          if (truncate(f.path.c_str(), static_cast<off_t>(f.size)) != 0)
            problem(ErrnoError("cannot truncate " + f.path + " to its size at the checkpoint", errno));
          else
            report.done.push_back(f.path + ": truncated to its size at the checkpoint (" + size_change(now, f.size) +
                                  ")");
        }
        break;
      case Action::kKeep:
        if (changed)
          report.warnings.push_back(f.path + " changed since the checkpoint (" + size_change(f.size, now) +
                                    (replaced ? ", another file" : "") + "); left as it is (cr_files=keep)");
        break;
      case Action::kCheck:
        if (changed)
          report.warnings.push_back(f.path + ", read by " + holders + ", changed since the checkpoint (" +
                                    size_change(f.size, now) + (replaced ? ", another file" : "") + ")");
        break;
    }
    if (m.sizes_differ && f.written && m.ranks.size() > 1 && !m.ranks.empty() && m.ranks.front() == rank &&
        action != Action::kKeep)
      report.warnings.push_back(f.path + " is written by " + holders +
                                ", whose checkpoints saw it at different sizes (one wrote after another's image "
                                "was taken): restored to the largest, so a few lines may appear twice");
  }
  if (!first_error.ok()) return first_error;
  return report;
}

}  // namespace lz::procfiles
