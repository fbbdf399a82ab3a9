#include "shm_names.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string.h>
#include <vector>

#include "lazarus/log.h"

namespace lz::transport::shm {
namespace {

constexpr std::string_view kPrefix = "lz-shm.";

std::string job_token() {
  const char* id = std::getenv("LZ_JOB_ID");
  std::string out;
  for (const char* c = id ? id : ""; *c != '\0' && out.size() < 24; ++c) {
    const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    *c == '-' || *c == '_';
    out.push_back(ok ? *c : '_');
  }
  return out.empty() ? "nojob" : out;
}

bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

uint64_t current_pid_namespace() {
  struct stat st;
  if (::stat("/proc/self/ns/pid", &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

SegmentName SegmentName::for_this_process(int rank, uint32_t generation) {
  SegmentName n;
  n.job = job_token();
  n.pidns = current_pid_namespace();
  n.pid = ::getpid();
  n.rank = rank;
  n.generation = generation;
  return n;
}

std::string SegmentName::stem() const {
  return std::string(kPrefix) + job + "." + std::to_string(pidns) + "." + std::to_string(pid) + "." +
         std::to_string(rank) + "." + std::to_string(generation);
}

std::optional<SegmentName> SegmentName::parse(std::string_view f) {
  if (f.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  f.remove_prefix(kPrefix.size());
  std::vector<std::string_view> parts;
  while (!f.empty()) {
    const size_t dot = f.find('.');
    parts.push_back(f.substr(0, dot));
    if (dot == std::string_view::npos) break;
    f.remove_prefix(dot + 1);
  }
  // job, pidns, pid, rank, generation [, suffix]
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  SegmentName n;
  uint64_t pidns, pid, rank, gen;
  if (parts[0].empty() || !parse_u64(parts[1], &pidns) || !parse_u64(parts[2], &pid) ||
      !parse_u64(parts[3], &rank) || !parse_u64(parts[4], &gen) || pid == 0 || pid > (1u << 30))
    return std::nullopt;
  n.job = std::string(parts[0]);
  n.pidns = pidns;
  n.pid = static_cast<pid_t>(pid);
  n.rank = static_cast<int>(rank);
  n.generation = static_cast<uint32_t>(gen);
  return n;
}

int sweep_stale(const std::string& dir) {
  const uint64_t my_ns = current_pid_namespace();
  if (my_ns == 0) return 0;  // cannot prove anything about pids
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (struct dirent* e = ::readdir(d)) {
    auto n = SegmentName::parse(e->d_name);
    if (!n || n->pidns != my_ns) continue;
    // Our own pid's too: a former process that had it died and left them
    // (the pid was reused), since we have none while this runs.
    if (n->pid != ::getpid() && (::kill(n->pid, 0) == 0 || errno != ESRCH)) continue;
    const std::string path = dir + "/" + e->d_name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    if (::unlink(path.c_str()) == 0) {
      ++removed;
      log::debug("shm: removed %s, left behind by a pid %d that no longer exists or is now ours", path.c_str(),
                 static_cast<int>(n->pid));
    }
  }
  ::closedir(d);
  return removed;
}

}  // namespace lz::transport::shm
