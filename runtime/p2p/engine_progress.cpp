// Progress and waiting: one pass over the transports, and the blocking wait
// that sleeps on their descriptors (never a busy spin when oversubscribed).
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "lazarus/log.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

int Engine::progress(int wait_polls) {
  int n = 0;
  turns_.store(turns_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  // A transport that reaches only this process holds nothing unless this
  // engine sent to itself since the last turn (Engine::transmit says so).
  const bool self_sent = std::exchange(self_dirty_, false);
  for (auto* t : active_)
    if (t == sole_ && wait_polls > 0 && !self_sent) n += t->progress_waiting(wait_polls);
    else if (t != self_only_ || self_sent) n += t->progress();
  if (__builtin_expect(!idle_.empty(), 0) && (++idle_turn_ & 63) == 0)
    for (auto* t : idle_) n += t->progress();
  if (__builtin_expect(!deferred_.empty(), 0)) run_deferred();
  if (__builtin_expect(pending_peers_ != 0, 0)) flush_all();
  if (__builtin_expect(!nbc_.empty(), 0)) advance_nbc();
  if (__builtin_expect(!hooks_.empty(), 0)) run_hooks();
  if (__builtin_expect(gate_ != nullptr, 0) && n > 0) gate_->note_events();
  return n;
}

void Engine::start_nbc(Request* r, std::unique_ptr<NbcSchedule> schedule) {
  r->kind = Request::Kind::kColl;
  r->active = true;
  r->complete = false;
  r->st_error = MPI_SUCCESS;
  r->st_cancelled = false;
  r->st_source = MPI_ANY_SOURCE;
  r->st_tag = MPI_ANY_TAG;
  r->st_bytes = 0;
  nbc_.push_back({r, std::move(schedule)});
  advance_nbc();
}

void Engine::run_hooks() {
  // By index: a hook may remove itself (a window freed from a callback).
  for (size_t i = 0; i < hooks_.size(); ++i) hooks_[i]->advance();
}

void Engine::remove_progress_hook(ProgressHook* h) {
  auto it = std::find(hooks_.begin(), hooks_.end(), h);
  if (it != hooks_.end()) hooks_.erase(it);
}

void Engine::advance_nbc() {
  // A schedule's transfers may complete others' rounds (sends to self): go
  // round the list until a turn changes nothing. Erase by index: advancing
  // never adds to the list.
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t i = 0; i < nbc_.size();) {
      if (!nbc_[i].schedule->advance()) {
        ++i;
        continue;
      }
      Request* r = nbc_[i].request;
      if (const Status& e = nbc_[i].schedule->error(); !e.ok()) {
        r->st_error = e.code() == Code::kAborted    ? MPI_ERR_PROC_FAILED
                      : e.code() == Code::kDataLoss ? MPI_ERR_TRUNCATE
                                                    : MPI_ERR_OTHER;
        log::debug("non-blocking collective failed: %s", e.message().c_str());
      }
      nbc_.erase(nbc_.begin() + static_cast<ptrdiff_t>(i));
      complete(r);
      moved = true;
    }
  }
}

bool Engine::arm_waits() {
  bool can_sleep = true;
  for (auto* t : active_) can_sleep &= t->arm_wait();
  for (auto* t : idle_) can_sleep &= t->arm_wait();
  return can_sleep;
}

nfds_t Engine::wait_fds(pollfd* fds) const {
  nfds_t n = 0;
  for (const auto* list : {&active_, &idle_})
    for (auto* t : *list)
      if (int fd = t->wait_fd(); fd >= 0 && n < kMaxWaitFds - 3) fds[n++] = {fd, POLLIN, 0};
  return n;
}

void Engine::take_interrupt() {
  if (interrupt_requested.load(std::memory_order_acquire)) {
    if (interrupt_fd_ >= 0) {
      uint64_t v;
      ssize_t n = read(interrupt_fd_, &v, sizeof v);  // non-blocking: clears a pending wake-up
      (void)n;
    }
    // A consistent point: not inside a transport's progress(), no deferred
    // work half done. The handler may park this thread while the CR thread
    // progresses the engine and checkpoints.
    if (interrupt_handler_) interrupt_handler_();
    else interrupt_requested.store(false, std::memory_order_relaxed);
  }
}

bool Engine::sleep_turn() {
  take_interrupt();
  if (progress() > 0 || self_dirty_) return true;
  if (__builtin_expect(gate_ != nullptr, 0) && gate_->poller_active()) {
    // MPI_THREAD_MULTIPLE: another thread sleeps in poll() for everyone.
    gate_->wait_turn(wait_timeout_ms_);
    return false;
  }
  if (!arm_waits() || self_dirty_) return progress() > 0;
  pollfd fds[kMaxWaitFds];
  nfds_t nfds = wait_fds(fds);
  auto add = [&](int fd) {
    if (fd >= 0 && nfds < kMaxWaitFds) fds[nfds++] = {fd, POLLIN, 0};
  };
  add(interrupt_fd_);
  const nfds_t wake_index = nfds;
  add(wake_fd_);
  if (__builtin_expect(gate_ != nullptr, 0)) add(gate_->wake_fd());
  // With CR on, the CR thread polls the control fd; polling it here too would
  // turn this wait into a spin while a control message waits to be read.
  const bool control = boot_ != nullptr && !control_dead_ && interrupt_fd_ < 0;
  const nfds_t control_index = nfds;
  if (control) add(boot_->control_fd());
  int timeout = (pending_peers_ != 0 || any_without_fd_) ? 1 : wait_timeout_ms_;
  if (__builtin_expect(gate_ != nullptr, 0)) gate_->release_for_poll();
  int rc = poll(fds, nfds, timeout);
  if (__builtin_expect(gate_ != nullptr, 0)) gate_->reacquire_after_poll();
  if (rc > 0 && control && control_index < nfds && (fds[control_index].revents & (POLLHUP | POLLERR | POLLNVAL)))
    control_dead_ = true;  // the launcher is gone; do not spin on the dead fd
  if (rc > 0 && wake_fd_ >= 0 && (fds[wake_index].revents & POLLIN)) {
    uint64_t v;
    ssize_t n = read(wake_fd_, &v, sizeof v);  // non-blocking: clears the wake-up
    (void)n;
    return true;  // a request completed outside the engine: the caller looks
  }
  return progress() > 0;
}

}  // namespace lz::rt
