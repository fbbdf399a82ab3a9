#include "launcher/output_forwarder.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

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
  if (file_ >= 0) write_fully(file_, line, n);
  if (dst_ < 0) return;
  if (prefix_.empty() && !timestamp_) {
    write_fully(dst_, line, n);
    return;
  }
  std::string s;
  if (timestamp_) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    tm local{};
    localtime_r(&now.tv_sec, &local);
    char stamp[64];
    const size_t k = std::strftime(stamp, sizeof stamp, "[%Y-%m-%dT%H:%M:%S", &local);
    std::snprintf(stamp + k, sizeof stamp - k, ".%03ld] ", now.tv_nsec / 1000000);
    s += stamp;
  }
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
  if (!prefix_.empty() || timestamp_) partial_ += '\n';
  emit(partial_.data(), partial_.size());
  partial_.clear();
}

}  // namespace lz::launcher
