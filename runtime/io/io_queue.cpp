#include "io/io_queue.h"

#include <pthread.h>

namespace lz::io {

IoQueue& IoQueue::instance() {
  static IoQueue* q = new IoQueue();  // never destroyed: the thread may outlive static destruction
  return *q;
}

void IoQueue::submit(std::function<void()> op) {
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back(std::move(op));
  if (!thread_.joinable()) {
    stopping_ = false;
    thread_ = std::thread([this] { run(); });
  }
  work_cv_.notify_one();
}

void IoQueue::run() {
  pthread_setname_np(pthread_self(), "lz-io");
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    work_cv_.wait(lk, [this] { return stopping_ || !ops_.empty(); });
    if (ops_.empty()) return;  // stopping, nothing left
    std::function<void()> op = std::move(ops_.front());
    ops_.pop_front();
    ++running_;
    lk.unlock();
    op();
    lk.lock();
    --running_;
    if (ops_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

void IoQueue::drain() {
  std::unique_lock<std::mutex> lk(mu_);
  idle_cv_.wait(lk, [this] { return ops_.empty() && running_ == 0; });
}

size_t IoQueue::pending() {
  std::lock_guard<std::mutex> g(mu_);
  return ops_.size() + running_;
}

void IoQueue::stop() {
  drain();
  std::thread t;
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
    work_cv_.notify_all();
    t = std::move(thread_);
  }
  if (t.joinable()) t.join();
}

}  // namespace lz::io
