// ControlServer: the job's control socket, through which `lazarus checkpoint`
// (and later tools) talk to a running launcher.
//
// A Unix stream socket at <job registry dir>/<job id>.sock (the directory is
// 0700, the socket 0600). Every connection is checked with SO_PEERCRED: only
// the launcher's own user or root may talk to it; anyone else is closed at
// once and logged. The protocol is one JSON object per line in each
// direction (requests: {"op": "checkpoint", "terminate": false}; answers:
// {"event": "accepted" | "committed" | "failed", ...}), small enough that a
// reply never blocks the launcher (writes that do not fit are dropped with
// the connection).
//
//   ControlServer ctl(loop, [&](uint64_t conn, const std::string& line) { ... });
//   LZ_RETURN_IF_ERROR(ctl.listen(path));
//   ctl.reply(conn, R"({"event":"accepted"})", /*close_after=*/false);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "launcher/event_loop.h"
#include "lazarus/status.h"
#include "oob/socket.h"

namespace lz::launcher {

class ControlServer {
 public:
  // Called once per request line (without its newline).
  using Handler = std::function<void(uint64_t conn, const std::string& line)>;

  ControlServer(EventLoop& loop, Handler handler) : loop_(loop), handler_(std::move(handler)) {}
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Creates the socket (replacing a stale one of a dead launcher).
  Status listen(const std::string& path);
  const std::string& path() const { return path_; }
  // Sends `line` (a newline is added); closes the connection afterwards when asked.
  void reply(uint64_t conn, const std::string& line, bool close_after);
  bool connected(uint64_t conn) const { return conns_.count(conn) != 0; }

 private:
  struct Conn {
    oob::Fd fd;
    std::string in;
  };
  void on_accept();
  void on_readable(uint64_t id);
  void drop(uint64_t id);

  EventLoop& loop_;
  Handler handler_;
  oob::Fd listener_;
  std::string path_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Conn> conns_;
};

}  // namespace lz::launcher
