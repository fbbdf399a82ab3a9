#include "launcher/live_children.h"

#include <dirent.h>

#include <cstdio>
#include <string>

namespace lz::launcher {

std::optional<bool> any_live_child(const std::function<bool(pid_t)>& picks) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return std::nullopt;
  bool found = false;
  while (dirent* t = readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    FILE* f = std::fopen(("/proc/self/task/" + std::string(t->d_name) + "/children").c_str(), "r");
    if (f == nullptr) continue;
    long pid = 0;
    while (!found && std::fscanf(f, "%ld", &pid) == 1) found = picks(static_cast<pid_t>(pid));
    std::fclose(f);
    if (found) break;
  }
  closedir(tasks);
  return found;
}

}  // namespace lz::launcher
