#include "launcher/job_registry.h"

#include <dirent.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launcher/job_file.h"

namespace lz::launcher {
namespace {

// A job file names its launcher by pid, but pids are per PID namespace and
// the job directory is not: a launcher SIGKILLed in one namespace leaves a
// file whose pid may belong to a live process of another, and a live
// launcher of another namespace has a pid that does not exist (or is
// another process) in ours. So the control socket (listening before the
// file is written, on a path every namespace sees) decides: a launcher is
// alive while it accepts a connection and dead once refused or gone. Only
// without an answer from it does the pid decide.
bool alive(const JobEntry& je) {
  const bool pid_alive = je.launcher_pid > 0 && (kill(je.launcher_pid, 0) == 0 || errno == EPERM);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (je.control_socket.empty() || je.control_socket.size() >= sizeof a.sun_path) return pid_alive;
  std::memcpy(a.sun_path, je.control_socket.c_str(), je.control_socket.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return pid_alive;
  const int rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  const int err = errno;
  close(fd);
  if (rc == 0) return true;
  if (err == ECONNREFUSED || err == ENOENT) return false;
  return pid_alive;
}

}  // namespace

std::vector<JobEntry> list_jobs(bool prune) {
  std::vector<std::pair<int64_t, JobEntry>> found;
  const std::string dir = JobFile::directory();
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return {};
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    const std::string path = dir + "/" + name;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (!j.is_object()) continue;
    JobEntry je;
    je.file = path;
    je.job_id = j.value("job_id", "");
    je.launcher_pid = j.value("launcher_pid", 0);
    je.np = j.value("np", 0);
    if (j.contains("command") && j["command"].is_array())
      for (auto& a : j["command"])
        if (a.is_string()) je.command.push_back(a);
    if (j.contains("ranks") && j["ranks"].is_array())
      for (auto& r : j["ranks"]) {
        if (!r.is_object() || !r.contains("host") || !r["host"].is_string()) continue;
        std::string h = r["host"];
        je.ranks.push_back({r.value("rank", 0), h, static_cast<pid_t>(r.value("pid", 0)), r.value("moves", 0)});
        if (std::find(je.hosts.begin(), je.hosts.end(), h) == je.hosts.end()) je.hosts.push_back(h);
      }
    je.last_snapshot = j.value("last_snapshot", "");
    je.control_socket = j.value("control_socket", "");
    je.snapshot_store = j.value("snapshot_store", "");
    je.manager_job = j.value("manager_job", "");
    if (!alive(je)) {
      if (prune) {
        unlink(path.c_str());
        if (!je.control_socket.empty()) unlink(je.control_socket.c_str());
      }
      continue;
    }
    found.emplace_back(j.value("start_time", int64_t{0}), std::move(je));
  }
  closedir(d);
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<JobEntry> out;
  for (auto& [t, je] : found) out.push_back(std::move(je));
  return out;
}

StatusOr<JobEntry> find_job(const std::string& what) {
  auto jobs = list_jobs(true);
  for (const auto& j : jobs)
    if (j.job_id == what) return j;
  // A job srun started, by Slurm's "JOB.STEP", or by "JOB" when one step of it runs here.
  std::vector<const JobEntry*> steps;
  for (const auto& j : jobs) {
    if (j.manager_job == what) return j;
    if (j.manager_job.rfind(what + ".", 0) == 0) steps.push_back(&j);
  }
  if (steps.size() == 1) return *steps.front();
  if (steps.size() > 1) {
    std::string names;
    for (const JobEntry* j : steps) names += (names.empty() ? "" : ", ") + j->manager_job;
    return InvalidArgument("job " + what + " runs several coordinated steps here (" + names + "); name one");
  }
  char* end = nullptr;
  long pid = std::strtol(what.c_str(), &end, 10);
  if (end != what.c_str() && *end == '\0')
    for (const auto& j : jobs)
      if (j.launcher_pid == pid) return j;
  return NotFound("no running job '" + what +
                  "' (neither a job id, a launcher pid nor a Slurm job or step coordinated on this host; `lazarus ps` "
                  "lists the jobs)");
}

}  // namespace lz::launcher
