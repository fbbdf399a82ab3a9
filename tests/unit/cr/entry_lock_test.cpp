// The checkpoint entry lock (runtime/cr/entry_lock.h) through the MPI entry
// guard (runtime/mpi/entry.h): the application side and the CR side are never
// both in, a thread parked in an interrupted wait resumes, and with CR off the
// guard only counts depth.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "mpi/entry.h"

namespace lz::rt {
namespace {

class EntryLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cr_lock_init();
    g_mpi_depth.store(0);
    g_cr_pending.store(0);
    g_cr_parked.store(0);
  }
  void TearDown() override { g_mpi_state.store(static_cast<int>(MpiState::kNotInitialized)); }
};

TEST_F(EntryLockTest, CrOffOnlyCountsDepth) {
  g_mpi_state.store(static_cast<int>(MpiState::kRunning));
  EXPECT_FALSE(inside_mpi());
  {
    EntryGuard outer("outer");
    EXPECT_EQ(g_mpi_depth.load(), 1);
    {
      EntryGuard inner("inner");
      EXPECT_EQ(g_mpi_depth.load(), 2);
    }
    EXPECT_TRUE(inside_mpi());
  }
  EXPECT_FALSE(inside_mpi());
}

TEST_F(EntryLockTest, ApplicationAndCrThreadNeverBothInside) {
  g_mpi_state.store(static_cast<int>(MpiState::kRunningCr));
  std::atomic<int> app_in{0}, cr_in{0}, violations{0};
  std::atomic<bool> cr_done{false};
  std::atomic<bool> stop{false};
  constexpr int kAppIterations = 200000;
  constexpr int kCrAcquisitions = 300;

  std::thread app([&] {
    // Runs until both sides did their share, whatever the scheduler does
    // (on a loaded machine the app could otherwise finish before the first
    // acquisition and the test would check nothing).
    for (int i = 0; i < kAppIterations || !cr_done.load(); ++i) {
      EntryGuard g("MPI_Test");
      app_in.store(1, std::memory_order_relaxed);
      if (cr_in.load(std::memory_order_relaxed)) violations.fetch_add(1);
      {
        EntryGuard nested("nested");  // nested entries never block
      }
      if (cr_in.load(std::memory_order_relaxed)) violations.fetch_add(1);
      app_in.store(0, std::memory_order_relaxed);
    }
  });
  int acquired = 0;
  for (int i = 0; i < kCrAcquisitions; ++i) {
    if (!cr_lock_acquire(&stop, [] {})) {
      ADD_FAILURE() << "cr_lock_acquire gave up without being stopped";
      break;
    }
    cr_in.store(1, std::memory_order_relaxed);
    for (int k = 0; k < 100; ++k)
      if (app_in.load(std::memory_order_relaxed)) violations.fetch_add(1);
    cr_in.store(0, std::memory_order_relaxed);
    cr_lock_release();
    ++acquired;
  }
  cr_done.store(true);
  app.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(acquired, kCrAcquisitions);
  EXPECT_EQ(g_mpi_depth.load(), 0);
}

// A "blocked call": inside MPI, waiting for a flag only the CR side sets,
// checking the interrupt flag every turn like Engine::sleep_turn.
TEST_F(EntryLockTest, ParkedWaitResumesAfterTheCheckpoint) {
  g_mpi_state.store(static_cast<int>(MpiState::kRunningCr));
  std::atomic<bool> interrupt{false}, done{false}, entered{false};
  std::atomic<int> parks{0};
  std::thread app([&] {
    EntryGuard g("MPI_Recv");
    entered.store(true);
    while (!done.load()) {
      if (interrupt.exchange(false)) {
        cr_park();
        parks.fetch_add(1);
      }
      std::this_thread::yield();
    }
  });
  while (!entered.load()) std::this_thread::yield();
  std::atomic<bool> stop{false};
  // The application is inside MPI and never leaves on its own: only parking
  // lets the CR side in.
  ASSERT_TRUE(cr_lock_acquire(&stop, [&] { interrupt.store(true); }));
  EXPECT_EQ(g_cr_parked.load(), 1);
  EXPECT_EQ(g_mpi_depth.load(), 1);
  done.store(true);  // what the drain would do: complete the awaited request
  cr_lock_release();
  app.join();
  EXPECT_EQ(parks.load(), 1);
  EXPECT_EQ(g_cr_parked.load(), 0);
  EXPECT_EQ(g_mpi_depth.load(), 0);
}

TEST_F(EntryLockTest, EntryDuringACheckpointWaitsForIt) {
  g_mpi_state.store(static_cast<int>(MpiState::kRunningCr));
  std::atomic<bool> stop{false}, in{false}, started{false};
  ASSERT_TRUE(cr_lock_acquire(&stop, [] {}));
  std::thread app([&] {
    started.store(true);
    EntryGuard g("MPI_Send");
    in.store(true);
  });
  while (!started.load()) std::this_thread::yield();
  // However long we look, the entry cannot complete while the lock is held.
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(in.load());
    std::this_thread::yield();
  }
  cr_lock_release();
  app.join();
  EXPECT_TRUE(in.load());
}

TEST_F(EntryLockTest, AcquireGivesUpWhenStopped) {
  g_mpi_state.store(static_cast<int>(MpiState::kRunningCr));
  EntryGuard g("MPI_Finalize");  // inside, never parks (the finalize case)
  std::atomic<bool> stop{false};
  std::thread cr([&] { EXPECT_FALSE(cr_lock_acquire(&stop, [] {})); });
  while (g_cr_pending.load() == 0) std::this_thread::yield();
  stop.store(true);
  cr.join();
  EXPECT_EQ(g_cr_pending.load(), 0);
}

}  // namespace
}  // namespace lz::rt
