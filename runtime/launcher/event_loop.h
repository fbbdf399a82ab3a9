// EventLoop: the launcher's single poll()-based loop. Every fd the launcher
// serves (OOB listener and connections, rank output pipes, the signalfd) is
// non-blocking and watched here, and every timeout (handshake deadlines, the
// job's --timeout, the SIGTERM-to-SIGKILL grace) is a timer here, so no peer
// can stall the launcher by being slow or silent.
//
//   EventLoop loop;
//   loop.watch(fd, POLLIN, [&](short revents) { ... });
//   auto t = loop.add_timer(oob::deadline_in(5), [&] { ... });
//   LZ_RETURN_IF_ERROR(loop.run());   // until loop.stop()
//
// Handlers may watch/unwatch fds and add/cancel timers, including their own.
// Not thread-safe: one thread runs the loop.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "lazarus/status.h"
#include "oob/socket.h"

namespace lz::launcher {

class EventLoop {
 public:
  using FdHandler = std::function<void(short revents)>;
  using TimerHandler = std::function<void()>;

  // Watches `fd` for `events` (POLLIN/POLLOUT); replaces an earlier watch.
  void watch(int fd, short events, FdHandler handler);
  void set_events(int fd, short events);
  void unwatch(int fd);

  // Runs `handler` once at `when`; returns an id for cancel_timer().
  uint64_t add_timer(oob::Deadline when, TimerHandler handler);
  void cancel_timer(uint64_t id);

  // Returns from run() after the current dispatch.
  void stop() { stopped_ = true; }
  Status run();
  // Runs the loop until `done()` holds (checked before every turn), stop()
  // is called, or `deadline` passes (kTimeout). For code that must
  // wait for an answer before it returns, outside run() or from a handler
  // (RemoteStarter::start waits for its helper so).
  Status run_until(const std::function<bool()>& done, oob::Deadline deadline);

 private:
  // One poll() and its dispatch, sleeping no later than `cap`.
  Status turn(oob::Deadline cap);

  struct Watch {
    short events;
    uint64_t generation;
    FdHandler handler;
  };
  struct Timer {
    oob::Deadline when;
    TimerHandler handler;
  };
  std::map<int, Watch> fds_;
  std::map<uint64_t, Timer> timers_;
  uint64_t next_id_ = 1;
  bool stopped_ = false;
};

}  // namespace lz::launcher
