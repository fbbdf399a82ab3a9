// The I/O thread: runs MPI-IO's non-blocking operations (MPI_File_iwrite_at,
// ...) while the program computes, so they progress without it calling MPI.
//
// A thread, not io_uring: an operation is a view mapped to file ranges,
// often with packing and a representation's conversion around the system
// calls, which a submission ring does not do; and one thread serves a
// rank's files with blocking pread/pwrite, which the page cache makes
// short. It starts with the first operation and sleeps on a condition
// variable when there is nothing to do (never a spin).
//
//   IoQueue::instance().submit([=] { ...pwrite...; complete(r); });
//   IoQueue::instance().drain();   // the checkpoint: every operation done
//
// Operations run in submission order, one at a time, so two non-blocking
// writes of one rank land in the order the program started them.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace lz::io {

class IoQueue {
 public:
  static IoQueue& instance();

  // Runs `op` on the I/O thread (started now if it is not running).
  void submit(std::function<void()> op);
  // Returns once every submitted operation has run (the caller holds the
  // entry lock, so no new one comes in meanwhile).
  void drain();
  // Operations submitted and not yet run to their end.
  size_t pending();
  // drain(), then ends the thread (MPI_Finalize).
  void stop();

 private:
  IoQueue() = default;
  void run();

  std::mutex mu_;
  std::condition_variable work_cv_, idle_cv_;
  std::deque<std::function<void()>> ops_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lz::io
