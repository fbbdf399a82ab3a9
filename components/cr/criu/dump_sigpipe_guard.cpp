#include "dump_sigpipe_guard.h"

#include <dirent.h>

#include <fstream>
#include <thread>

namespace lz::cr::criu {
namespace {

void ignore_sigpipe(struct sigaction* old) {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, old);
}

// True when every thread that was there before still has the mask it had.
bool masks_back(const std::map<std::string, std::string>& before) {
  for (const auto& [tid, mask] : DumpSigpipeGuard::thread_masks()) {
    auto it = before.find(tid);
    if (it != before.end() && it->second != mask) return false;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> DumpSigpipeGuard::thread_masks() {
  std::map<std::string, std::string> masks;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return masks;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(std::string("/proc/self/task/") + e->d_name + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("SigBlk:", 0) == 0) {
        masks[e->d_name] = line.substr(7);
        break;
      }
  }
  closedir(dir);
  return masks;
}

DumpSigpipeGuard::DumpSigpipeGuard(std::chrono::milliseconds settle)
    : settle_(settle), masks_before_(thread_masks()) {
  ignore_sigpipe(&old_);
}

DumpSigpipeGuard::~DumpSigpipeGuard() {
  const auto deadline = std::chrono::steady_clock::now() + settle_;
  while (!masks_back(masks_before_) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ignore_sigpipe(nullptr);  // discards a SIGPIPE pending in any thread
  sigaction(SIGPIPE, &old_, nullptr);
}

}  // namespace lz::cr::criu
