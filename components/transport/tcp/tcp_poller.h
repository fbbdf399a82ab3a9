// The readiness set of a tcp module: one epoll instance (also the module's
// wait_fd()) plus a timerfd inside it, armed to the nearest handshake or
// connect deadline so that a rank sleeping on wait_fd() still wakes to refuse
// a silent stranger or to retry a connection.
//
// Each registration carries a tag {kind, id, fd}; the fd is checked on
// dispatch, so an event for a socket closed and replaced during the same
// batch is recognised as stale and dropped.
#pragma once

#include <sys/epoll.h>

#include <cstdint>

#include "lazarus/status.h"
#include "tcp_socket.h"

namespace lz::transport::tcp {

enum class PollKind : uint8_t { kListener = 1, kPending = 2, kEndpoint = 3, kTimer = 4 };

struct PollTag {
  PollKind kind;
  uint32_t id;  // listener index, pending-accept slot, or peer rank
  int fd;
  static uint64_t pack(PollKind k, uint32_t id, int fd) {
    return (uint64_t{static_cast<uint8_t>(k)} << 56) | (uint64_t{id & 0xffffffu} << 32) | static_cast<uint32_t>(fd);
  }
  static PollTag unpack(uint64_t v) {
    return {static_cast<PollKind>(v >> 56), static_cast<uint32_t>((v >> 32) & 0xffffffu),
            static_cast<int>(static_cast<uint32_t>(v))};
  }
};

class TcpPoller {
 public:
  Status open();
  void close();
  int fd() const { return epoll_.get(); }

  // Level-triggered registration; `events` is EPOLLIN, EPOLLOUT or both.
  Status add(int fd, PollKind kind, uint32_t id, uint32_t events);
  Status modify(int fd, PollKind kind, uint32_t id, uint32_t events);
  void remove(int fd);

  // Non-blocking wait; returns the number of events filled (0 on error).
  int poll(epoll_event* out, int max);

  // Arms the timer for absolute monotonic time `when` (seconds, now_seconds()
  // clock) if earlier than the one armed; a fired timer is acknowledged by
  // timer_fired(), after which deadlines must be re-armed by the caller.
  void arm_deadline(double when);
  void timer_fired();

 private:
  UniqueFd epoll_;
  UniqueFd timer_;
  double armed_ = 0;  // 0: not armed
};

}  // namespace lz::transport::tcp
