#include "shm_segment.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "lazarus/log.h"
#include "lazarus/unique_fd.h"

namespace lz::transport::shm {

Segment::Segment(Segment&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      path_(std::move(o.path_)),
      owner_(std::exchange(o.owner_, false)),
      linked_(std::exchange(o.linked_, false)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    reset();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    path_ = std::move(o.path_);
    owner_ = std::exchange(o.owner_, false);
    linked_ = std::exchange(o.linked_, false);
  }
  return *this;
}

StatusOr<Segment> Segment::create(const std::string& path, uint64_t bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return ErrnoError("shm: cannot create segment " + path, errno);
  Segment s;  // from here on, the destructor removes the file on failure
  s.path_ = path;
  s.owner_ = true;
  s.linked_ = true;
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return ErrnoError("shm: cannot size segment " + path, errno);
  if (int err = ::posix_fallocate(fd.get(), 0, static_cast<off_t>(bytes)); err != 0)
    return ErrnoError("shm: cannot reserve " + std::to_string(bytes) + " bytes for " + path +
                          " (is the backing directory full? see transport_shm_backing_dir)",
                      err);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) return ErrnoError("shm: cannot map segment " + path, errno);
  s.base_ = static_cast<uint8_t*>(p);
  s.size_ = bytes;
  return s;
}

StatusOr<Segment> Segment::open(const std::string& path, uint64_t min_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return ErrnoError("shm: cannot open peer segment " + path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("shm: cannot stat " + path, errno);
  if (st.st_uid != ::geteuid())
    return PermissionDenied("shm: segment " + path + " belongs to uid " + std::to_string(st.st_uid) +
                            ", not to this user");
  if (static_cast<uint64_t>(st.st_size) < min_bytes)
    return ProtocolError("shm: segment " + path + " has " + std::to_string(st.st_size) + " bytes, expected " +
                         std::to_string(min_bytes));
  const uint64_t bytes = static_cast<uint64_t>(st.st_size);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) return ErrnoError("shm: cannot map peer segment " + path, errno);
  Segment s;
  s.base_ = static_cast<uint8_t*>(p);
  s.size_ = bytes;
  s.path_ = path;
  return s;
}

Status Segment::unlink() {
  if (!owner_ || !linked_) return Status::Ok();
  linked_ = false;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return ErrnoError("shm: cannot remove " + path_, errno);
  return Status::Ok();
}

void Segment::reset() {
  if (base_ != nullptr && ::munmap(base_, size_) != 0)
    log::warn("shm: munmap of %s failed: %s", path_.c_str(), strerror(errno));
  base_ = nullptr;
  size_ = 0;
  if (Status s = unlink(); !s.ok()) log::warn("%s", s.message().c_str());
  owner_ = false;
  path_.clear();
}

}  // namespace lz::transport::shm
