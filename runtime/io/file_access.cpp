#include "io/file_access.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace lz::io {

namespace {

thread_local int t_errno = 0;  // the errno of the last failed system call of this thread's access

// pwrite of all `len` bytes (retried after a short write or EINTR).
Status pwrite_all(int fd, const char* p, uint64_t len, uint64_t off) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, p, len, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      t_errno = errno;
      return ErrnoError("pwrite of " + std::to_string(len) + " bytes at offset " + std::to_string(off), errno);
    }
    p += n;
    off += static_cast<uint64_t>(n);
    len -= static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// pread of up to `len` bytes; fewer only at the end of the file.
StatusOr<uint64_t> pread_all(int fd, char* p, uint64_t len, uint64_t off) {
  uint64_t got = 0;
  while (got < len) {
    const ssize_t n = pread(fd, p + got, len - got, static_cast<off_t>(off + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      t_errno = errno;
      return ErrnoError("pread of " + std::to_string(len) + " bytes at offset " + std::to_string(off), errno);
    }
    if (n == 0) break;
    got += static_cast<uint64_t>(n);
  }
  return got;
}

// The segments [first, last) that one sieve covers: as many as fit in
// sieve_bytes from segs[first].offset on.
size_t sieve_end(const std::vector<Segment>& segs, size_t first, uint64_t sieve_bytes) {
  const uint64_t start = segs[first].offset;
  size_t last = first + 1;
  while (last < segs.size() && segs[last].offset >= start &&
         segs[last].offset + segs[last].length - start <= sieve_bytes)
    ++last;
  return last;
}

// Worth a sieve: several ranges whose holes are not much larger than their data.
bool worth_sieving(const std::vector<Segment>& segs, size_t first, size_t last) {
  if (last - first < 2) return false;
  const uint64_t span = segs[last - 1].offset + segs[last - 1].length - segs[first].offset;
  uint64_t data = 0;
  for (size_t i = first; i < last; ++i) data += segs[i].length;
  return span <= 4 * data;
}

uint64_t span_of(const std::vector<Segment>& segs) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const Segment& s : segs) {
    lo = std::min(lo, s.offset);
    hi = std::max(hi, s.offset + s.length);
  }
  return segs.empty() ? 0 : hi - lo;
}

uint64_t first_offset(const std::vector<Segment>& segs) {
  uint64_t lo = UINT64_MAX;
  for (const Segment& s : segs) lo = std::min(lo, s.offset);
  return segs.empty() ? 0 : lo;
}

}  // namespace

uint64_t total_length(const std::vector<Segment>& segs) {
  uint64_t n = 0;
  for (const Segment& s : segs) n += s.length;
  return n;
}

RangeLock::RangeLock(int fd, uint64_t offset, uint64_t length, bool exclusive)
    : fd_(fd), offset_(offset), length_(length) {
  if (fd < 0) return;  // no lock wanted
  struct flock fl {};
  fl.l_type = static_cast<short>(exclusive ? F_WRLCK : F_RDLCK);
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(offset);
  fl.l_len = static_cast<off_t>(length);
  while (fcntl(fd, F_SETLKW, &fl) != 0) {
    if (errno == EINTR) continue;
    t_errno = errno;
    status_ = ErrnoError("locking bytes " + std::to_string(offset) + "+" + std::to_string(length) + " (fcntl)", errno);
    fd_ = -1;
    break;
  }
}

RangeLock::~RangeLock() {
  if (fd_ < 0) return;
  struct flock fl {};
  fl.l_type = F_UNLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(offset_);
  fl.l_len = static_cast<off_t>(length_);
  fcntl(fd_, F_SETLK, &fl);
}

namespace {
// fcntl locks do not exclude within a process: with sieving writes on, this
// process's writes (the program's and the I/O thread's) go one at a time.
std::mutex g_sieving_writes;

StatusOr<uint64_t> write_impl(int fd, const std::vector<Segment>& segs, const char* data, const AccessOptions& o) {
  if (segs.empty()) return uint64_t{0};
  const bool guarded = o.sieve_writes || o.lock_writes;
  std::unique_lock<std::mutex> one_at_a_time(g_sieving_writes, std::defer_lock);
  if (guarded) one_at_a_time.lock();
  RangeLock whole(o.atomic ? fd : -1, first_offset(segs), span_of(segs), true);
  if (o.atomic && !whole.status().ok()) return whole.status();
  uint64_t done = 0;
  std::vector<char> sieve;
  for (size_t i = 0; i < segs.size();) {
    const size_t end = o.sieve_writes ? sieve_end(segs, i, o.sieve_write_bytes) : i + 1;
    if (!worth_sieving(segs, i, end)) {
      // Where writers sieve, every writer locks what it writes: a sieving
      // writer's read-modify-write must not put back old bytes over a
      // range another process wrote meanwhile.
      RangeLock lock(guarded && !o.atomic ? fd : -1, segs[i].offset, segs[i].length, true);
      if (guarded && !o.atomic && !lock.status().ok()) return lock.status();
      LZ_RETURN_IF_ERROR(pwrite_all(fd, data + done, segs[i].length, segs[i].offset));
      done += segs[i].length;
      ++i;
      continue;
    }
    // Read-modify-write of the span, under a lock every writer takes.
    const uint64_t start = segs[i].offset;
    const uint64_t span = segs[end - 1].offset + segs[end - 1].length - start;
    RangeLock lock(o.atomic ? -1 : fd, start, span, true);
    if (!o.atomic && !lock.status().ok()) return lock.status();
    sieve.assign(span, 0);
    LZ_ASSIGN_OR_RETURN(uint64_t got, pread_all(fd, sieve.data(), span, start));
    (void)got;  // past the end of the file the holes are zeros, as a sparse file reads
    for (size_t k = i; k < end; ++k) {
      std::memcpy(sieve.data() + (segs[k].offset - start), data + done, segs[k].length);
      done += segs[k].length;
    }
    LZ_RETURN_IF_ERROR(pwrite_all(fd, sieve.data(), span, start));
    i = end;
  }
  return done;
}

StatusOr<uint64_t> read_impl(int fd, const std::vector<Segment>& segs, char* data, const AccessOptions& o) {
  if (segs.empty()) return uint64_t{0};
  RangeLock whole(o.atomic ? fd : -1, first_offset(segs), span_of(segs), false);
  if (o.atomic && !whole.status().ok()) return whole.status();
  uint64_t done = 0;
  std::vector<char> sieve;
  for (size_t i = 0; i < segs.size();) {
    const size_t end = o.sieve_reads ? sieve_end(segs, i, o.sieve_bytes) : i + 1;
    if (!worth_sieving(segs, i, end)) {
      LZ_ASSIGN_OR_RETURN(uint64_t got, pread_all(fd, data + done, segs[i].length, segs[i].offset));
      done += got;
      if (got < segs[i].length) return done;  // the end of the file
      ++i;
      continue;
    }
    const uint64_t start = segs[i].offset;
    const uint64_t span = segs[end - 1].offset + segs[end - 1].length - start;
    sieve.resize(span);
    LZ_ASSIGN_OR_RETURN(uint64_t got, pread_all(fd, sieve.data(), span, start));
    for (size_t k = i; k < end; ++k) {
      const uint64_t at = segs[k].offset - start;
      if (at >= got) return done;
      const uint64_t n = std::min<uint64_t>(segs[k].length, got - at);
      std::memcpy(data + done, sieve.data() + at, n);
      done += n;
      if (n < segs[k].length) return done;
    }
    i = end;
  }
  return done;
}
}  // namespace

// Each failing system call records its errno (t_errno), which the caller
// maps to an MPI error class.
StatusOr<uint64_t> write_segments(int fd, const std::vector<Segment>& segs, const char* data, const AccessOptions& o,
                                  int* sys_errno) {
  t_errno = 0;
  auto r = write_impl(fd, segs, data, o);
  *sys_errno = t_errno;
  return r;
}

StatusOr<uint64_t> read_segments(int fd, const std::vector<Segment>& segs, char* data, const AccessOptions& o,
                                 int* sys_errno) {
  t_errno = 0;
  auto r = read_impl(fd, segs, data, o);
  *sys_errno = t_errno;
  return r;
}

}  // namespace lz::io
