#include "launcher/event_loop.h"

#include <poll.h>

#include <cerrno>
#include <vector>

namespace lz::launcher {

void EventLoop::watch(int fd, short events, FdHandler handler) {
  fds_[fd] = Watch{events, next_id_++, std::move(handler)};
}

void EventLoop::set_events(int fd, short events) {
  auto it = fds_.find(fd);
  if (it != fds_.end()) it->second.events = events;
}

void EventLoop::unwatch(int fd) { fds_.erase(fd); }

uint64_t EventLoop::add_timer(oob::Deadline when, TimerHandler handler) {
  uint64_t id = next_id_++;
  timers_[id] = Timer{when, std::move(handler)};
  return id;
}

void EventLoop::cancel_timer(uint64_t id) { timers_.erase(id); }

Status EventLoop::run() {
  while (!stopped_) LZ_RETURN_IF_ERROR(turn(oob::kNoDeadline));
  return Status::Ok();
}

Status EventLoop::run_until(const std::function<bool()>& done, oob::Deadline deadline) {
  while (!stopped_ && !done()) {
    if (oob::Clock::now() >= deadline) return Timeout("timed out");
    LZ_RETURN_IF_ERROR(turn(deadline));
  }
  return Status::Ok();
}

Status EventLoop::turn(oob::Deadline cap) {
  std::vector<pollfd> pfds;
  std::vector<uint64_t> gens;
  {
    oob::Deadline next = cap;
    for (const auto& [id, t] : timers_)
      if (t.when < next) next = t.when;
    pfds.clear();
    gens.clear();
    for (const auto& [fd, w] : fds_) {
      pfds.push_back({fd, w.events, 0});
      gens.push_back(w.generation);
    }
    int n = poll(pfds.data(), pfds.size(), oob::poll_timeout_ms(next));
    if (n < 0 && errno != EINTR) return ErrnoError("poll", errno);
    for (size_t i = 0; n > 0 && i < pfds.size() && !stopped_; ++i) {
      if (pfds[i].revents == 0) continue;
      // The fd may have been unwatched, or closed and reused, by an earlier
      // handler of this round: dispatch only to the watch that was polled.
      auto it = fds_.find(pfds[i].fd);
      if (it == fds_.end() || it->second.generation != gens[i]) continue;
      FdHandler h = it->second.handler;  // the handler may unwatch itself
      h(pfds[i].revents);
    }
    auto now = oob::Clock::now();
    std::vector<uint64_t> due;
    for (const auto& [id, t] : timers_)
      if (t.when <= now) due.push_back(id);
    for (uint64_t id : due) {
      if (stopped_) break;
      auto it = timers_.find(id);
      if (it == timers_.end()) continue;
      TimerHandler h = std::move(it->second.handler);
      timers_.erase(it);
      h();
    }
  }
  return Status::Ok();
}

}  // namespace lz::launcher
