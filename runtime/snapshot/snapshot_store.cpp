#include "snapshot/snapshot_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <map>
#include <set>

#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/strings.h"
#include "snapshot/depends_file.h"
#include "snapshot/durable_io.h"
#include "snapshot/file_hasher.h"

namespace lz::snapshot {

namespace {

constexpr const char* kPartialSuffix = ".partial";
constexpr const char* kPruningSuffix = ".pruning";
constexpr const char* kLockFile = ".lock";
// verify() reports every damaged file, but a message with thousands of them
// helps nobody.
constexpr size_t kMaxProblemsReported = 8;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "17" -> 17; leading zeros, signs and anything else refused so that each
// sequence number has exactly one directory name.
std::optional<uint64_t> parse_seq(std::string_view s) {
  if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_safe_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos && is_safe_relative_path(s);
}

StatusOr<std::vector<std::string>> dir_entries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    int err = errno;
    if (err == ENOENT) return NotFound(dir + " does not exist");
    return ErrnoError("open directory " + dir, err);
  }
  std::vector<std::string> out;
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(std::move(n));
  }
  int err = errno;
  ::closedir(d);
  if (err != 0) return ErrnoError("read directory " + dir, err);
  return out;
}

// What lies below a snapshot directory, relative to it, sorted.
struct Tree {
  std::vector<std::string> files;   // regular files
  std::vector<std::string> dirs;    // directories, parents before children
  std::vector<std::string> others;  // symbolic links, devices, sockets, fifos
};

Status walk(const std::string& root, const std::string& rel, Tree& t, int depth) {
  if (depth > 64) return DataLoss(root + "/" + rel + ": directories nested too deeply");
  std::string dir = rel.empty() ? root : root + "/" + rel;
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir));
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    std::string r = rel.empty() ? n : rel + "/" + n;
    struct stat st;
    if (::lstat((root + "/" + r).c_str(), &st) != 0) return ErrnoError("stat " + root + "/" + r, errno);
    if (S_ISREG(st.st_mode)) {
      t.files.push_back(r);
    } else if (S_ISDIR(st.st_mode)) {
      t.dirs.push_back(r);
      LZ_RETURN_IF_ERROR(walk(root, r, t, depth + 1));
    } else {
      t.others.push_back(r);
    }
  }
  return Status::Ok();
}

Status join_problems(const std::vector<std::string>& problems) {
  std::string m;
  for (size_t i = 0; i < problems.size() && i < kMaxProblemsReported; ++i) m += (i ? "; " : "") + problems[i];
  if (problems.size() > kMaxProblemsReported)
    m += "; and " + std::to_string(problems.size() - kMaxProblemsReported) + " more problems";
  return DataLoss(m);
}

}  // namespace

// ---------------------------------------------------------------------------
// Opening

StatusOr<SnapshotStore> SnapshotStore::open(const std::string& root, const JobRecord& job, StoreOptions options) {
  if (root.empty()) return InvalidArgument("snapshot_root is empty");
  if (!is_safe_name(job.name)) return InvalidArgument("job name '" + job.name + "' cannot be a directory name");
  if (!is_safe_name(job.id)) return InvalidArgument("job id '" + job.id + "' cannot be a directory name");
  LZ_RETURN_IF_ERROR(make_dirs(root, 0700));
  SnapshotStore s;
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  s.dir_ = r + "/" + job.name + "." + job.id;
  s.job_ = job;
  s.options_ = options;
  LZ_RETURN_IF_ERROR(make_dir(s.dir_, 0700));
  LZ_RETURN_IF_ERROR(s.take_lock(/*must=*/true));
  s.remove_stale();
  LZ_RETURN_IF_ERROR(s.write_manifest());
  return s;
}

StatusOr<SnapshotStore> SnapshotStore::open_existing(const std::string& path_in, StoreOptions options) {
  std::string path = path_in;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty()) return InvalidArgument("empty snapshot path");
  SnapshotStore s;
  s.options_ = options;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return NotFound(path + " does not exist");
  if (!S_ISDIR(st.st_mode)) return InvalidArgument(path + " is not a directory");
  if (::stat((path + "/" + kManifestFile).c_str(), &st) == 0) {
    s.dir_ = path;
  } else {
    std::string parent = parent_dir(path);
    std::string base = path.substr(path.find_last_of('/') + 1);
    auto seq = parse_seq(base);
    if (!seq || ::stat((parent + "/" + kManifestFile).c_str(), &st) != 0)
      return NotFound(path + " is neither a job snapshot directory (it has no " + kManifestFile +
                      ") nor a committed snapshot <seq>/ inside one");
    s.dir_ = parent;
    s.requested_seq_ = *seq;
  }
  while (s.dir_.size() > 1 && s.dir_.back() == '/') s.dir_.pop_back();  // "<store>//3" names <store>/3 too
  LZ_ASSIGN_OR_RETURN(Manifest m, Manifest::read(s.dir_ + "/" + kManifestFile));
  // The directory is <name>.<id> of the job its manifest describes: a
  // manifest copied from another job would restart the wrong program.
  const std::string base = s.dir_.substr(s.dir_.find_last_of('/') + 1);
  if (base != m.job.name + "." + m.job.id)
    return DataLoss(s.dir_ + "/" + kManifestFile + " describes job " + m.job.name + "." + m.job.id +
                    ", but it is in the directory of job " + base +
                    ": the manifest comes from another job; restore the right one or restart from that job's directory");
  s.job_ = std::move(m.job);
  LZ_RETURN_IF_ERROR(s.take_lock(/*must=*/false));
  if (s.writable()) s.remove_stale();
  return s;
}

Status SnapshotStore::take_lock(bool must) {
  std::string path = dir_ + "/" + kLockFile;
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    if (!must && (errno == EACCES || errno == EROFS)) return Status::Ok();  // read-only access
    return ErrnoError("open " + path, errno);
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err != EWOULDBLOCK) return ErrnoError("lock " + path, err);
    if (!must) return Status::Ok();
    char buf[32] = {};
    ssize_t n = ::pread(fd.get(), buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return Unavailable(dir_ + " is in use by another launcher" + (holder.empty() ? "" : " (pid " + holder + ")"));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0 || ::pwrite(fd.get(), pid.data(), pid.size(), 0) < 0) {
    // Only informative (names the holder in the message above).
  }
  lock_ = std::move(fd);
  return Status::Ok();
}

void SnapshotStore::remove_stale() {
  auto names = dir_entries(dir_);
  if (!names.ok()) return;
  for (const auto& n : *names) {
    std::string stem;
    const char* what = nullptr;
    if (ends_with(n, kPartialSuffix)) {
      stem = n.substr(0, n.size() - std::string_view(kPartialSuffix).size());
      what = "interrupted checkpoint";
    } else if (ends_with(n, kPruningSuffix)) {
      stem = n.substr(0, n.size() - std::string_view(kPruningSuffix).size());
      what = "interrupted prune of";
    } else if (n == std::string(kManifestFile) + ".tmp") {
      ::unlink((dir_ + "/" + n).c_str());
      continue;
    }
    if (!what || !parse_seq(stem)) continue;  // not ours: leave it
    std::string p = dir_ + "/" + n;
    log::info("snapshot: removing %s %s", what, p.c_str());
    if (auto s = remove_tree(p); !s.ok()) log::warn("snapshot: %s", s.message().c_str());
  }
}

// ---------------------------------------------------------------------------
// Writing

std::string SnapshotStore::snapshot_dir(uint64_t seq) const { return dir_ + "/" + std::to_string(seq); }

StatusOr<std::vector<uint64_t>> SnapshotStore::numeric_dirs() const {
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir_));
  std::vector<uint64_t> out;
  for (const auto& n : names) {
    std::string stem = n;
    if (ends_with(n, kPartialSuffix)) stem = n.substr(0, n.size() - std::string_view(kPartialSuffix).size());
    if (auto s = parse_seq(stem)) out.push_back(*s);
  }
  std::sort(out.rbegin(), out.rend());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

uint64_t SnapshotStore::next_seq() const {
  auto seqs = numeric_dirs();
  uint64_t newest = 0;
  if (seqs.ok() && !seqs->empty()) newest = seqs->front();
  if (auto m = Manifest::read(dir_ + "/" + kManifestFile); m.ok())
    for (const auto& i : m->snapshots) newest = std::max(newest, i.seq);
  return newest + 1;
}

StatusOr<PendingSnapshot> SnapshotStore::begin(uint64_t seq) {
  if (!writable()) return Unavailable(dir_ + " is in use by another launcher: cannot take a snapshot here");
  if (seq == 0) return InvalidArgument("snapshot sequence numbers start at 1");
  std::string partial = snapshot_dir(seq) + kPartialSuffix;
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir_));
  for (const auto& n : names) {
    auto s = parse_seq(n);
    if (s && *s >= seq)
      return InvalidArgument("snapshot " + std::to_string(seq) + " of " + dir_ + " would not be the newest (" +
                             std::to_string(*s) + " exists); use next_seq()");
  }
  // Left by an earlier attempt with the same number in this process.
  LZ_RETURN_IF_ERROR(remove_tree(partial));
  LZ_RETURN_IF_ERROR(make_dir(partial, 0700));
  return PendingSnapshot(seq, partial, snapshot_dir(seq));
}

Status SnapshotStore::abort(PendingSnapshot& snap) {
  if (!snap.pending_) return Status::Ok();
  snap.pending_ = false;
  return remove_tree(snap.dir_);
}

StatusOr<SnapshotInfo> SnapshotStore::commit(PendingSnapshot& snap, const SnapshotMeta& meta) {
  if (!snap.pending_) return InvalidArgument("snapshot " + std::to_string(snap.seq_) + " is not pending");
  if (snap.final_dir_ != snapshot_dir(snap.seq_)) return InvalidArgument("snapshot " + snap.dir_ + " is not of this store");
  if (!writable()) return Unavailable(dir_ + " is in use by another launcher");
  if (meta.np < 0 || meta.np > CommitRecord::kMaxRanks) return InvalidArgument("np " + std::to_string(meta.np) + " is out of range");
  const std::string& root = snap.dir_;

  Tree tree;
  LZ_RETURN_IF_ERROR(walk(root, "", tree, 0));
  if (!tree.others.empty())
    return InvalidArgument("snapshot " + root + "/" + tree.others.front() +
                           " is not a regular file or directory: snapshots hold regular files only");
  for (const auto& f : tree.files) {
    if (f == kCommittedFile || f == std::string(kCommittedFile) + ".tmp")
      return InvalidArgument("snapshot " + root + " already holds a " + f + " file");
    if (!is_safe_relative_path(f))
      return InvalidArgument("snapshot file name " + root + "/" + f + " has control characters");
  }
  if (meta.np > 0) {
    std::set<std::string> top(tree.dirs.begin(), tree.dirs.end());
    for (int r = 0; r < meta.np; ++r)
      if (!top.count(snapshot_rank_entry(r)))
        return InvalidArgument("snapshot " + root + " has no rank." + std::to_string(r) + " directory (np " +
                               std::to_string(meta.np) + ")");
  }

  LZ_ASSIGN_OR_RETURN(std::vector<uint64_t> depends, pending_depends(root, snap.seq_, tree.files));

  // Pass 1: fix modes and start writeback of everything, so the disk writes
  // while pass 2 hashes from the page cache and its fsync()s mostly wait for
  // I/O already under way.
  uint64_t total = 0;
  for (const auto& rel : tree.files) {
    std::string p = root + "/" + rel;
    UniqueFd fd(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return ErrnoError("open " + p, errno);
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + p, errno);
    if ((st.st_mode & 07777) != 0600 && ::fchmod(fd.get(), 0600) != 0) return ErrnoError("chmod " + p, errno);
    ::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint; fsync below is the guarantee
    total += static_cast<uint64_t>(st.st_size);
  }
  for (const auto& rel : tree.dirs) {
    std::string p = root + "/" + rel;
    if (::chmod(p.c_str(), 0700) != 0) return ErrnoError("chmod " + p, errno);
  }
  if (::chmod(root.c_str(), 0700) != 0) return ErrnoError("chmod " + root, errno);

  // Pass 2: checksum and make durable.
  CommitRecord rec;
  rec.seq = snap.seq_;
  rec.meta = meta;
  rec.depends = std::move(depends);
  if (rec.meta.job.empty()) rec.meta.job = job_.id;
  if (rec.meta.time == 0) rec.meta.time = static_cast<int64_t>(::time(nullptr));
  {
    FileHasher hasher;
    Progress progress("checkpoint " + std::to_string(snap.seq_) + ": checksumming", total, options_.progress,
                      options_.progress_out);
    for (const auto& rel : tree.files) {
      std::string p = root + "/" + rel;
      UniqueFd fd(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      if (!fd.valid()) return ErrnoError("open " + p, errno);
      LZ_ASSIGN_OR_RETURN(FileDigest d, hasher.hash_fd(fd.get(), p, &progress));
      struct stat st;
      if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + p, errno);
      if (static_cast<uint64_t>(st.st_size) != d.size)
        return Internal("snapshot file " + p + " changed while being committed (" + std::to_string(d.size) +
                        " bytes read, now " + std::to_string(st.st_size) + "): is a rank still writing?");
      if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + p, errno);
      rec.files.push_back({rel, d.size, d.xxh3});
    }
    progress.finish();
  }
  // Deepest first, so each directory's entries are durable before its parent's.
  for (auto it = tree.dirs.rbegin(); it != tree.dirs.rend(); ++it) LZ_RETURN_IF_ERROR(fsync_dir(root + "/" + *it));

  std::string text = rec.format();
  // Never commit a record we could not read back (e.g. a file name that does
  // not survive YAML).
  if (auto back = CommitRecord::parse(text, root + "/" + kCommittedFile); !back.ok())
    return Internal("the commit record does not read back: " + back.status().message());
  LZ_RETURN_IF_ERROR(write_file_atomic(root + "/" + kCommittedFile, text, 0600));  // fsyncs `root` too

  // The commit point.
  if (::rename(root.c_str(), snap.final_dir_.c_str()) != 0)
    return ErrnoError("rename " + root + " to " + snap.final_dir_, errno);
  snap.pending_ = false;
  if (auto s = fsync_dir(dir_); !s.ok()) {
    // The rename is visible but maybe not durable; a crash could forget it.
    // Report the checkpoint as failed rather than promise what we cannot.
    return s.with_context("snapshot " + snap.final_dir_ + " renamed but not durable");
  }
  SnapshotInfo info = rec.info(snap.final_dir_);

  if (auto s = prune(rec.seq); !s.ok()) log::warn("snapshot: pruning old snapshots failed: %s", s.message().c_str());
  if (auto s = write_manifest(); !s.ok())
    log::warn("snapshot: %s committed but the manifest could not be updated (the next open rewrites it): %s",
              snap.final_dir_.c_str(), s.message().c_str());
  return info;
}

StatusOr<std::vector<uint64_t>> SnapshotStore::pending_depends(const std::string& root, uint64_t seq,
                                                               const std::vector<std::string>& files) const {
  std::set<uint64_t> all;
  for (const auto& rel : files) {
    size_t slash = rel.find('/');
    if (slash == std::string::npos || rel.compare(0, 5, "rank.") != 0 ||
        rel.compare(slash + 1, std::string::npos, kSnapshotDependsFile) != 0)
      continue;
    const std::string rank_dir = root + "/" + rel.substr(0, slash);
    auto deps = read_depends_file(root + "/" + rel);
    if (!deps.ok()) return InvalidArgument("snapshot " + rank_dir + ": " + deps.status().message());
    for (uint64_t d : *deps) {
      if (d >= seq)
        return InvalidArgument("snapshot " + rank_dir + " depends on snapshot " + std::to_string(d) + " (its " +
                               kSnapshotDependsFile + "), which is not older than snapshot " + std::to_string(seq));
      if (all.count(d)) continue;
      if (auto i = info(d); !i.ok())
        return InvalidArgument("snapshot " + rank_dir + " depends on snapshot " + std::to_string(d) + " (its " +
                               kSnapshotDependsFile + "), which is not a committed snapshot of " + dir_ + ": " +
                               i.status().message());
      all.insert(d);
    }
  }
  return std::vector<uint64_t>(all.begin(), all.end());
}

Status SnapshotStore::prune(uint64_t just_committed) {
  if (options_.keep <= 0) return Status::Ok();
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir_));
  std::vector<uint64_t> seqs;
  for (const auto& n : names)
    if (auto s = parse_seq(n)) seqs.push_back(*s);
  std::sort(seqs.rbegin(), seqs.rend());
  // Only snapshots whose COMMITTED reads count towards `keep`: a damaged one
  // must not push a good one out. The just-committed one always counts.
  std::map<uint64_t, std::vector<uint64_t>> depends;  // of the snapshots whose COMMITTED reads
  for (uint64_t s : seqs)
    if (auto rec = CommitRecord::read(snapshot_dir(s) + "/" + kCommittedFile); rec.ok() && rec->seq == s)
      depends[s] = std::move(rec->depends);
  int64_t kept = 0;
  uint64_t oldest_kept = just_committed;
  std::vector<uint64_t> todo;
  for (uint64_t s : seqs) {
    if (kept >= options_.keep) break;
    if (s == just_committed || depends.count(s)) {
      ++kept;
      oldest_kept = s;
      todo.push_back(s);
    }
  }
  if (kept < options_.keep) return Status::Ok();
  // What the kept ones depend on, transitively, stays too (without counting
  // towards `keep`).
  std::set<uint64_t> needed(todo.begin(), todo.end());
  while (!todo.empty()) {
    uint64_t s = todo.back();
    todo.pop_back();
    auto it = depends.find(s);
    if (it == depends.end()) continue;
    for (uint64_t d : it->second)
      if (needed.insert(d).second) todo.push_back(d);
  }
  Status result;
  bool renamed = false;
  for (uint64_t s : seqs) {
    if (s >= oldest_kept || s == just_committed) continue;
    if (needed.count(s)) {
      log::debug("snapshot: keeping %s beyond cr_keep %lld: a kept snapshot depends on it", snapshot_dir(s).c_str(),
                 static_cast<long long>(options_.keep));
      continue;
    }
    std::string from = snapshot_dir(s), to = from + kPruningSuffix;
    // Renamed first so the snapshot leaves the committed set atomically; a
    // crash during the removal leaves a .pruning directory, cleaned on open.
    if (::rename(from.c_str(), to.c_str()) != 0) {
      result = ErrnoError("rename " + from + " to " + to, errno);
      continue;
    }
    renamed = true;
    log::debug("snapshot: pruning %s (cr_keep %lld)", from.c_str(), static_cast<long long>(options_.keep));
    if (auto st = remove_tree(to); !st.ok()) result = st;
  }
  if (renamed) {
    if (auto st = fsync_dir(dir_); !st.ok()) result = st;
  }
  return result;
}

Status SnapshotStore::write_manifest() const {
  if (!writable()) return Unavailable(dir_ + " is in use by another launcher");
  Manifest m;
  m.job = job_;
  LZ_ASSIGN_OR_RETURN(auto snaps, list());
  for (auto it = snaps.rbegin(); it != snaps.rend(); ++it) {
    SnapshotInfo i = *it;
    i.path.clear();
    m.snapshots.push_back(std::move(i));
  }
  return write_file_atomic(dir_ + "/" + kManifestFile, m.format(), 0600);
}

// ---------------------------------------------------------------------------
// Reading

StatusOr<SnapshotInfo> SnapshotStore::info(uint64_t seq) const {
  std::string d = snapshot_dir(seq);
  struct stat st;
  if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    if (::stat((d + kPartialSuffix).c_str(), &st) == 0)
      return NotFound("snapshot " + d + " was never committed (its checkpoint was interrupted)");
    return NotFound("snapshot " + d + " does not exist");
  }
  std::string cpath = d + "/" + kCommittedFile;
  auto rec = CommitRecord::read(cpath);
  if (!rec.ok()) {
    if (rec.status().code() == Code::kNotFound)
      return DataLoss("snapshot " + d + " is not committed: " + cpath + " is missing");
    return rec.status();
  }
  if (rec->seq != seq)
    return DataLoss(cpath + " describes snapshot " + std::to_string(rec->seq) + ", not " + std::to_string(seq));
  return rec->info(d);
}

StatusOr<std::vector<SnapshotInfo>> SnapshotStore::list(std::vector<std::string>* problems) const {
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir_));
  std::vector<uint64_t> seqs;
  for (const auto& n : names)
    if (auto s = parse_seq(n)) seqs.push_back(*s);
  std::sort(seqs.rbegin(), seqs.rend());
  std::vector<SnapshotInfo> out;
  for (uint64_t s : seqs) {
    auto i = info(s);
    if (i.ok()) {
      out.push_back(std::move(*i));
    } else if (problems) {
      problems->push_back(i.status().message());
    }
  }
  return out;
}

Status SnapshotStore::verify(uint64_t seq) const {
  VerifyCache cache;
  return verify_with_depends(seq, cache);
}

const SnapshotStore::Verified& SnapshotStore::verify_cached(uint64_t seq, VerifyCache& cache) const {
  auto it = cache.find(seq);
  if (it != cache.end()) return it->second;
  Verified v;
  v.status = verify_files(seq, &v.depends);
  return cache.emplace(seq, std::move(v)).first->second;
}

Status SnapshotStore::verify_with_depends(uint64_t seq, VerifyCache& cache) const {
  const Verified& self = verify_cached(seq, cache);
  if (!self.status.ok()) return self.status;
  // (dependency, the snapshot that names it), each dependency checked once.
  std::vector<std::pair<uint64_t, uint64_t>> todo;
  for (uint64_t d : self.depends) todo.emplace_back(d, seq);
  std::set<uint64_t> seen(self.depends.begin(), self.depends.end());
  while (!todo.empty()) {
    auto [d, by] = todo.back();
    todo.pop_back();
    const Verified& v = verify_cached(d, cache);
    if (!v.status.ok()) {
      const bool missing = v.status.code() == Code::kNotFound;
      return DataLoss("snapshot " + std::to_string(seq) + " depends on snapshot " + std::to_string(d) +
                      (by == seq ? "" : " (through snapshot " + std::to_string(by) + ")") + ", which is " +
                      (missing ? "missing" : "damaged") + ": " + v.status.message());
    }
    for (uint64_t more : v.depends)
      if (seen.insert(more).second) todo.emplace_back(more, d);
  }
  return Status::Ok();
}

Status SnapshotStore::verify_files(uint64_t seq, std::vector<uint64_t>* depends) const {
  LZ_ASSIGN_OR_RETURN(SnapshotInfo si, info(seq));
  const std::string& d = si.path;
  LZ_ASSIGN_OR_RETURN(CommitRecord rec, CommitRecord::read(d + "/" + kCommittedFile));
  *depends = rec.depends;
  if (!rec.meta.job.empty() && rec.meta.job != job_.id)
    return DataLoss("snapshot " + d + "/" + kCommittedFile + " was written by job " + rec.meta.job +
                    ", not by job " + job_.id + " of " + dir_ + "/" + kManifestFile +
                    ": the snapshot was copied from another job");

  std::vector<std::string> problems;
  Tree tree;
  LZ_RETURN_IF_ERROR(walk(d, "", tree, 0));
  std::set<std::string> listed;
  for (const auto& f : rec.files) listed.insert(f.path);
  for (const auto& f : tree.files)
    if (f != kCommittedFile && !listed.count(f))
      problems.push_back("snapshot " + d + "/" + f + " is not listed in COMMITTED (a file that was not part of the checkpoint)");
  for (const auto& f : tree.others)
    problems.push_back("snapshot " + d + "/" + f + " is not a regular file and not listed in COMMITTED");

  // Sizes first: cheap, and a truncated file need not be read.
  std::vector<const CommittedFile*> to_hash;
  uint64_t total = 0;
  for (const auto& f : rec.files) {
    std::string p = d + "/" + f.path;
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      int err = errno;
      problems.push_back(err == ENOENT ? "snapshot " + p + " is missing" : ErrnoError("stat " + p, err).message());
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      problems.push_back("snapshot " + p + " is not a regular file");
      continue;
    }
    auto size = static_cast<uint64_t>(st.st_size);
    if (size < f.size) {
      problems.push_back("snapshot " + p + " is truncated: " + std::to_string(size) + " bytes, expected " +
                         std::to_string(f.size));
      continue;
    }
    if (size > f.size) {
      problems.push_back("snapshot " + p + " has grown: " + std::to_string(size) + " bytes, expected " +
                         std::to_string(f.size));
      continue;
    }
    to_hash.push_back(&f);
    total += f.size;
  }

  FileHasher hasher;
  Progress progress("verifying snapshot " + std::to_string(seq), total, options_.progress, options_.progress_out);
  for (const CommittedFile* f : to_hash) {
    std::string p = d + "/" + f->path;
    auto dg = hasher.hash_file(p, &progress);
    if (!dg.ok()) {
      problems.push_back("snapshot " + p + " cannot be read: " + dg.status().message());
      continue;
    }
    if (dg->size != f->size) {
      problems.push_back("snapshot " + p + " is truncated: " + std::to_string(dg->size) + " bytes, expected " +
                         std::to_string(f->size));
    } else if (dg->xxh3 != f->xxh3) {
      problems.push_back("snapshot " + p + " is corrupted: checksum " + FileHasher::to_hex(dg->xxh3) +
                         ", expected " + FileHasher::to_hex(f->xxh3));
    }
  }
  progress.finish();
  if (!problems.empty()) return join_problems(problems);
  return Status::Ok();
}

StatusOr<SnapshotInfo> SnapshotStore::newest_valid(std::vector<std::string>* skipped) const {
  LZ_ASSIGN_OR_RETURN(auto names, dir_entries(dir_));
  std::vector<uint64_t> seqs;
  for (const auto& n : names)
    if (auto s = parse_seq(n)) seqs.push_back(*s);
  std::sort(seqs.rbegin(), seqs.rend());
  std::vector<std::string> why;
  VerifyCache cache;  // a base that several snapshots depend on is read once
  for (uint64_t s : seqs) {
    Status v = verify_with_depends(s, cache);
    if (v.ok()) {
      auto i = info(s);
      if (i.ok()) {
        if (skipped) skipped->insert(skipped->end(), why.begin(), why.end());
        return i;
      }
      v = i.status();
    }
    why.push_back("snapshot " + std::to_string(s) + ": " + v.message());
  }
  if (skipped) skipped->insert(skipped->end(), why.begin(), why.end());
  std::string m = "no valid snapshot in " + dir_;
  if (!why.empty()) m += ": " + str::join(why, "; ");
  return NotFound(m);
}

}  // namespace lz::snapshot
