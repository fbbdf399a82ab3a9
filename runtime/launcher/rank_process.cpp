#include "launcher/rank_process.h"

#include <sys/wait.h>

#include <csignal>
#include <cstring>

namespace lz::launcher {

std::string RankProcess::describe() const {
  return "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + (remote ? " on " + place.host : "") + ")";
}

std::string RankProcess::exit_text() const {
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    std::string s = "was killed by signal " + std::to_string(sig);
    if (abbrev != nullptr) s += std::string(" (SIG") + abbrev + ")";
    if (WCOREDUMP(wait_status)) s += ", core dumped";
    return s;
  }
  return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
}

int RankProcess::exit_code() const {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

}  // namespace lz::launcher
