#include "launcher/spawn_link.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lazarus/log.h"

namespace lz::launcher {

SpawnLink::SpawnLink(EventLoop& loop, oob::Fd fd, OnFrame on_frame, OnClosed on_closed)
    : loop_(loop), fd_(std::move(fd)), on_frame_(std::move(on_frame)), on_closed_(std::move(on_closed)) {
  if (Status s = oob::set_nonblocking(fd_.get(), true); !s.ok()) log::warn("spawn link: %s", s.message().c_str());
  loop_.watch(fd_.get(), POLLIN, [this](short ev) { on_events(ev); });
}

SpawnLink::~SpawnLink() {
  if (fd_.valid()) loop_.unwatch(fd_.get());
}

void SpawnLink::send(oob::MsgType type, const std::string& payload) {
  if (!fd_.valid()) {
    log::debug("spawn link closed: %s not sent", oob::msg_type_name(static_cast<uint16_t>(type)).c_str());
    return;
  }
  out_ += oob::encode_frame(type, payload);
  flush();
}

void SpawnLink::flush() {
  while (!out_.empty() && fd_.valid()) {
    const ssize_t n = ::send(fd_.get(), out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    close_with(Status(Code::kAborted, std::string("writing to the other launcher: ") + std::strerror(errno)));
    return;
  }
  if (fd_.valid()) loop_.set_events(fd_.get(), static_cast<short>(POLLIN | (out_.empty() ? 0 : POLLOUT)));
}

void SpawnLink::on_events(short revents) {
  if (revents & POLLOUT) flush();
  if (!fd_.valid() || !(revents & (POLLIN | POLLHUP | POLLERR))) return;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n > 0) {
      in_.feed(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // Frames already read go first: the other launcher's last words.
    for (oob::Frame f;;) {
      auto got = in_.next(&f);
      if (!got.ok() || !*got) break;
      on_frame_(f);
      if (!fd_.valid()) return;
    }
    close_with(n == 0 ? Status(Code::kAborted, "the other launcher closed the link")
                      : Status(Code::kAborted, std::string("reading from the other launcher: ") + std::strerror(errno)));
    return;
  }
  for (oob::Frame f;;) {
    auto got = in_.next(&f);
    if (!got.ok()) {
      close_with(got.status());
      return;
    }
    if (!*got) return;
    on_frame_(f);
    if (!fd_.valid()) return;
  }
}

void SpawnLink::close_with(const Status& why) {
  if (!fd_.valid()) return;
  loop_.unwatch(fd_.get());
  fd_.reset();
  out_.clear();
  if (on_closed_) on_closed_(why);
}

}  // namespace lz::launcher
