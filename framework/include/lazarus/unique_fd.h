// UniqueFd: owns a file descriptor and closes it on destruction — the one RAII
// handle for descriptors (sockets, FIFOs, pidfds, epoll fds, files) used by
// components and the runtime alike.
//
//   lz::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
//   if (!fd.valid()) return lz::ErrnoError("open " + path, errno);
//   read(fd.get(), ...);
#pragma once

#include <utility>

namespace lz {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership without closing.
  int release() { return std::exchange(fd_, -1); }
  // Closes the held descriptor (EINTR is not retried: Linux has freed it; a
  // failure is logged at debug level) and takes `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

}  // namespace lz
