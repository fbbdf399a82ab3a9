#include "launcher/job_registry.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launcher/job_file.h"

namespace lz::launcher {
namespace {

bool alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

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
    je.last_snapshot = j.value("last_snapshot", "");
    je.control_socket = j.value("control_socket", "");
    je.snapshot_store = j.value("snapshot_store", "");
    if (!alive(je.launcher_pid)) {
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
  char* end = nullptr;
  long pid = std::strtol(what.c_str(), &end, 10);
  if (end != what.c_str() && *end == '\0')
    for (const auto& j : jobs)
      if (j.launcher_pid == pid) return j;
  return NotFound("no running job '" + what + "' (neither a job id nor a launcher pid; `lazarus ps` lists the jobs)");
}

}  // namespace lz::launcher
