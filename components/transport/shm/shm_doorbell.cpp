#include "shm_doorbell.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "lazarus/log.h"

namespace lz::transport::shm {

Doorbell::Doorbell(Doorbell&& o) noexcept
    : fd_(std::move(o.fd_)), path_(std::move(o.path_)), linked_(std::exchange(o.linked_, false)) {}

Doorbell& Doorbell::operator=(Doorbell&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::move(o.fd_);
    path_ = std::move(o.path_);
    linked_ = std::exchange(o.linked_, false);
  }
  return *this;
}

StatusOr<Doorbell> Doorbell::create(const std::string& path) {
  if (::mkfifo(path.c_str(), 0600) != 0) return ErrnoError("shm: cannot make doorbell FIFO " + path, errno);
  Doorbell b;
  b.path_ = path;
  b.linked_ = true;
  b.fd_ = UniqueFd(::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW));
  if (!b.fd_.valid()) return ErrnoError("shm: cannot open doorbell FIFO " + path, errno);
  return b;
}

int Doorbell::drain() {
  char buf[256];
  int total = 0;
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n > 0) {
      total += static_cast<int>(n);
      if (static_cast<size_t>(n) < sizeof buf) return total;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return total;  // EAGAIN: empty
  }
}

Status Doorbell::unlink() {
  if (!linked_) return Status::Ok();
  linked_ = false;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return ErrnoError("shm: cannot remove " + path_, errno);
  return Status::Ok();
}

void Doorbell::reset() {
  fd_.reset();
  if (Status s = unlink(); !s.ok()) log::warn("%s", s.message().c_str());
  path_.clear();
}

StatusOr<DoorbellWriter> DoorbellWriter::open(const std::string& path) {
  DoorbellWriter w;
  w.fd_ = UniqueFd(::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW));
  if (!w.fd_.valid()) return ErrnoError("shm: cannot open peer doorbell " + path, errno);
  struct stat st;
  if (::fstat(w.fd_.get(), &st) != 0) return ErrnoError("shm: cannot stat " + path, errno);
  if (!S_ISFIFO(st.st_mode) || st.st_uid != ::geteuid())
    return PermissionDenied("shm: " + path + " is not a FIFO owned by this user");
  return w;
}

void DoorbellWriter::ring() const {
  const char b = 1;
  ssize_t n;
  do {
    n = ::write(fd_.get(), &b, 1);
  } while (n < 0 && errno == EINTR);
}

}  // namespace lz::transport::shm
