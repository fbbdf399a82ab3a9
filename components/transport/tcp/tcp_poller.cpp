#include "tcp_poller.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>

#include "lazarus/log.h"

namespace lz::transport::tcp {

Status TcpPoller::open() {
  close();
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return ErrnoError("tcp: epoll_create1", errno);
  epoll_.reset(ep);
  // The coarse clock drives deadlines; CLOCK_MONOTONIC has the same epoch.
  int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (t < 0) return ErrnoError("tcp: timerfd_create", errno);
  timer_.reset(t);
  return add(t, PollKind::kTimer, 0, EPOLLIN);
}

void TcpPoller::close() {
  timer_.reset();
  epoll_.reset();
  armed_ = 0;
}

Status TcpPoller::add(int fd, PollKind kind, uint32_t id, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = PollTag::pack(kind, id, fd);
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) return ErrnoError("tcp: epoll_ctl(ADD)", errno);
  return Status::Ok();
}

Status TcpPoller::modify(int fd, PollKind kind, uint32_t id, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = PollTag::pack(kind, id, fd);
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev) != 0) return ErrnoError("tcp: epoll_ctl(MOD)", errno);
  return Status::Ok();
}

void TcpPoller::remove(int fd) {
  if (epoll_.valid() && fd >= 0) epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
}

int TcpPoller::poll(epoll_event* out, int max) {
  int n = epoll_wait(epoll_.get(), out, max, 0);
  if (n < 0) {
    if (errno != EINTR) log::debug("tcp: epoll_wait: %s", std::strerror(errno));
    return 0;
  }
  return n;
}

void TcpPoller::arm_deadline(double when) {
  if (!timer_.valid()) return;
  if (armed_ != 0 && armed_ <= when) return;
  armed_ = when;
  itimerspec its{};
  // The coarse clock lags the precise one by up to a tick: round up so the
  // deadline has really passed when the timer fires.
  const double w = when + 0.005;
  its.it_value.tv_sec = static_cast<time_t>(w);
  its.it_value.tv_nsec = static_cast<long>((w - std::floor(w)) * 1e9);
  if (timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &its, nullptr) != 0)
    log::debug("tcp: timerfd_settime: %s", std::strerror(errno));
}

void TcpPoller::timer_fired() {
  uint64_t ticks;
  while (::read(timer_.get(), &ticks, sizeof ticks) > 0) {
  }
  armed_ = 0;
}

}  // namespace lz::transport::tcp
