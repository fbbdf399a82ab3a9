#include "shm_test_job.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace lz::test::shm {

Status RankEnv::barrier() const {
  char c = 'F';
  if (::write(sock, &c, 1) != 1) return ErrnoError("barrier write", errno);
  ssize_t n;
  do {
    n = ::read(sock, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) return Status(Code::kAborted, "barrier: parent gone");
  if (c != 'G') return Status(Code::kAborted, "barrier: a rank exited before reaching it");
  return Status::Ok();
}

bool RankOutcome::exited_ok() const { return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0; }
bool RankOutcome::skipped() const { return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == kSkipExit; }

std::string RankOutcome::describe() const {
  char b[96];
  if (WIFEXITED(wait_status))
    std::snprintf(b, sizeof b, "rank %d exited with %d", rank, WEXITSTATUS(wait_status));
  else if (WIFSIGNALED(wait_status))
    std::snprintf(b, sizeof b, "rank %d killed by signal %d", rank, WTERMSIG(wait_status));
  else
    std::snprintf(b, sizeof b, "rank %d: status %#x", rank, wait_status);
  return b;
}

std::vector<RankOutcome> run_ranks(int n, const std::function<void(RankEnv&)>& body, int watchdog_seconds) {
  TempDir dir;
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids(static_cast<size_t>(n), -1);
  std::vector<int> socks(static_cast<size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(sv[0]);
      for (int i = 0; i < r; ++i) ::close(socks[static_cast<size_t>(i)]);
      RankEnv env{r, n, dir.path(), sv[1]};
      body(env);
      const int code = ::testing::Test::IsSkipped() ? kSkipExit : ::testing::Test::HasFailure() ? 1 : 0;
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(code);
    }
    ::close(sv[1]);
    pids[static_cast<size_t>(r)] = pid;
    socks[static_cast<size_t>(r)] = sv[0];
  }

  // Barrier service until every rank has closed its socket (exited).
  std::vector<bool> open(static_cast<size_t>(n), true), waiting(static_cast<size_t>(n), false);
  std::vector<RankOutcome> out(static_cast<size_t>(n));
  bool broken = false;
  int alive = n;
  const time_t deadline = ::time(nullptr) + watchdog_seconds;
  auto reply = [&](int r, char c) { (void)!::write(socks[static_cast<size_t>(r)], &c, 1); };
  while (alive > 0) {
    std::vector<struct pollfd> pfds;
    std::vector<int> who;
    for (int r = 0; r < n; ++r)
      if (open[static_cast<size_t>(r)]) pfds.push_back({socks[static_cast<size_t>(r)], POLLIN, 0}), who.push_back(r);
    const int left = static_cast<int>(deadline - ::time(nullptr));
    if (left <= 0) {
      ADD_FAILURE() << "watchdog: ranks still running after " << watchdog_seconds << " s; killing them";
      for (int r = 0; r < n; ++r)
        if (open[static_cast<size_t>(r)]) ::kill(pids[static_cast<size_t>(r)], SIGKILL);
      watchdog_seconds = 1 << 20;
    }
    if (::poll(pfds.data(), pfds.size(), 1000) <= 0) continue;
    for (size_t i = 0; i < pfds.size(); ++i) {
      if (!pfds[i].revents) continue;
      const int r = who[i];
      char c;
      const ssize_t got = ::read(socks[static_cast<size_t>(r)], &c, 1);
      if (got == 1) {
        if (broken) reply(r, 'X');
        else waiting[static_cast<size_t>(r)] = true;
        continue;
      }
      // EOF: the rank is gone. Reap it now so its pid really disappears
      // (peers detect exits; a zombie would still answer kill(pid, 0)).
      open[static_cast<size_t>(r)] = false;
      --alive;
      ::waitpid(pids[static_cast<size_t>(r)], &out[static_cast<size_t>(r)].wait_status, 0);
      out[static_cast<size_t>(r)].rank = r;
      broken = true;
      for (int q = 0; q < n; ++q)
        if (waiting[static_cast<size_t>(q)]) waiting[static_cast<size_t>(q)] = false, reply(q, 'X');
    }
    if (!broken) {
      bool all = true;
      for (int r = 0; r < n; ++r) all = all && waiting[static_cast<size_t>(r)];
      if (all)
        for (int r = 0; r < n; ++r) waiting[static_cast<size_t>(r)] = false, reply(r, 'G');
    }
  }
  for (int s : socks) ::close(s);
  return out;
}

}  // namespace lz::test::shm
