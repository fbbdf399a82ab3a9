// SpawnLink: one end of the socketpair between a spawned job's launcher and
// the launcher that started it (oob/tree_messages.h), framed as the OOB
// channel is (oob/frame.h). Non-blocking on the launcher's event loop: what
// cannot be written at once waits for POLLOUT; frames read are handed to
// `on_frame` in order; the peer's end (EOF, an error, a frame that does not
// parse) is reported once through `on_closed`, after which the link sends
// nothing.
//
//   SpawnLink link(loop, std::move(fd), [&](oob::Frame& f) { ... }, [&](const Status& why) { ... });
//   link.send(oob::MsgType::kTreeDrained, oob::encode_tree_round({round, 0}));
#pragma once

#include <functional>
#include <string>

#include "launcher/event_loop.h"
#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/socket.h"

namespace lz::launcher {

class SpawnLink {
 public:
  using OnFrame = std::function<void(oob::Frame& f)>;
  using OnClosed = std::function<void(const Status& why)>;

  SpawnLink(EventLoop& loop, oob::Fd fd, OnFrame on_frame, OnClosed on_closed);
  ~SpawnLink();
  SpawnLink(const SpawnLink&) = delete;
  SpawnLink& operator=(const SpawnLink&) = delete;

  void send(oob::MsgType type, const std::string& payload);
  bool open() const { return fd_.valid(); }

 private:
  void on_events(short revents);
  void flush();
  void close_with(const Status& why);

  EventLoop& loop_;
  oob::Fd fd_;
  OnFrame on_frame_;
  OnClosed on_closed_;
  oob::FrameDecoder in_;
  std::string out_;
};

}  // namespace lz::launcher
