#include "launcher/output_forwarder.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace lz::launcher {

void write_fully(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w > 0) {
      data += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 1000);
      continue;
    }
    return;
  }
}

void OutputForwarder::emit(const char* line, size_t n) {
  if (prefix_.empty()) {
    write_fully(dst_, line, n);
    return;
  }
  std::string s;
  s.reserve(prefix_.size() + n);
  s += prefix_;
  s.append(line, n);
  write_fully(dst_, s.data(), s.size());
}

void OutputForwarder::write(const char* data, size_t n) {
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    if (data[i] != '\n') continue;
    if (partial_.empty()) {
      emit(data + start, i + 1 - start);
    } else {
      partial_.append(data + start, i + 1 - start);
      emit(partial_.data(), partial_.size());
      partial_.clear();
    }
    start = i + 1;
  }
  partial_.append(data + start, n - start);
  if (partial_.size() >= kMaxLine) {
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
}

void OutputForwarder::finish() {
  if (partial_.empty()) return;
  // With tags every forwarded line must end, so the next tag starts a line.
  if (!prefix_.empty()) partial_ += '\n';
  emit(partial_.data(), partial_.size());
  partial_.clear();
}

}  // namespace lz::launcher
