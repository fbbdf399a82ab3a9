// DumpSigpipeGuard (components/cr/criu): a SIGPIPE raised while a criu dump
// runs neither kills the rank nor reaches the application's handler, also
// when it is raised in a thread that blocks every signal (criu's parasite)
// and unblocks it only after the dump has returned; the application's
// disposition comes back.
#include "dump_sigpipe_guard.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <future>
#include <thread>

namespace lz::cr::criu {
namespace {

std::atomic<int> g_handled{0};
void count_sigpipe(int) { g_handled.fetch_add(1); }

class DumpSigpipeGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_handled = 0;
    struct sigaction sa {};
    sa.sa_handler = count_sigpipe;
    sigemptyset(&sa.sa_mask);
    ASSERT_EQ(sigaction(SIGPIPE, &sa, &old_), 0);
  }
  void TearDown() override { sigaction(SIGPIPE, &old_, nullptr); }
  struct sigaction old_ {};
};

// A pipe whose read end is closed: a write raises SIGPIPE.
struct BrokenPipe {
  BrokenPipe() {
    EXPECT_EQ(pipe(fd), 0);
    close(fd[0]);
  }
  ~BrokenPipe() { close(fd[1]); }
  int write_byte() const { return static_cast<int>(write(fd[1], "x", 1)); }
  int fd[2];
};

TEST_F(DumpSigpipeGuardTest, AWriteToADeadPeerFailsWithEpipeAndTheHandlerIsNotCalled) {
  BrokenPipe p;
  {
    DumpSigpipeGuard guard;
    errno = 0;
    EXPECT_EQ(p.write_byte(), -1);
    EXPECT_EQ(errno, EPIPE);
  }
  EXPECT_EQ(g_handled.load(), 0);
  // The application's handler is back: the same write now reaches it.
  EXPECT_EQ(p.write_byte(), -1);
  EXPECT_EQ(g_handled.load(), 1);
}

TEST_F(DumpSigpipeGuardTest, TheApplicationsDispositionComesBack) {
  { DumpSigpipeGuard guard; }
  struct sigaction now {};
  ASSERT_EQ(sigaction(SIGPIPE, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, &count_sigpipe);
}

// The parasite's case: a thread blocks every signal, raises SIGPIPE only
// after the guard has begun to end, and unblocks later. `settle` is how long
// the guard waits for that thread's mask to come back.
int sigpipes_seen_by_the_application(std::chrono::milliseconds settle) {
  BrokenPipe p;
  std::promise<void> dump_began, infected, guard_gone;
  std::shared_future<void> gone = guard_gone.get_future().share();
  // The thread exists before the dump, as the one criu infects does.
  std::thread parasite([&] {
    dump_began.get_future().wait();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    infected.set_value();
    // Raised once the guard is gone, or after 100 ms if it is still
    // waiting for this thread; pending either way: blocked here.
    gone.wait_for(std::chrono::milliseconds(100));
    p.write_byte();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pthread_sigmask(SIG_SETMASK, &old, nullptr);  // the cure's sigreturn
  });
  {
    DumpSigpipeGuard guard(settle);
    dump_began.set_value();
    infected.get_future().wait();
  }
  guard_gone.set_value();
  parasite.join();
  return g_handled.load();
}

TEST_F(DumpSigpipeGuardTest, ASigpipeOfAThreadThatUnblocksAfterTheDumpIsDiscarded) {
  EXPECT_EQ(sigpipes_seen_by_the_application(std::chrono::milliseconds(10000)), 0);
}

// Without waiting for that thread the signal outlives the guard and reaches
// the application (its default action would kill the rank): the wait is what
// the test above checks.
TEST_F(DumpSigpipeGuardTest, WithoutTheWaitThatSigpipeReachesTheApplication) {
  EXPECT_EQ(sigpipes_seen_by_the_application(std::chrono::milliseconds(0)), 1);
}

}  // namespace
}  // namespace lz::cr::criu
