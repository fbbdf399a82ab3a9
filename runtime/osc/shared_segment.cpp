#include "osc/shared_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "lazarus/status.h"

namespace lz::osc {

namespace {
// The header page's fields.
struct Header {
  std::atomic<int> joined;  // ranks that mapped (and wrote back) a re-share
};
std::string shm_path(const std::string& name) { return "/dev/shm" + name; }
void nap() {
  struct timespec ts {
    0, 100000
  };
  nanosleep(&ts, nullptr);
}
}  // namespace

size_t SharedSegment::page() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

StatusOr<char*> SharedSegment::map_fd(int fd, size_t total, void* at) {
  const int flags = MAP_SHARED | (at != nullptr ? MAP_FIXED : 0);
  void* m = mmap(at, total, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (m == MAP_FAILED) return ErrnoError("mapping the shared window segment", errno);
  return static_cast<char*>(m);
}

StatusOr<std::unique_ptr<SharedSegment>> SharedSegment::create(const std::string& name, size_t bytes) {
  const size_t total = page() + bytes;
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 && errno == EEXIST) {  // a dead job's leftover of the same name
    shm_unlink(name.c_str());
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  }
  if (fd < 0) return ErrnoError("creating " + shm_path(name), errno);
  if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
    const int e = errno;
    close(fd);
    shm_unlink(name.c_str());
    return ErrnoError("sizing " + shm_path(name) + " to " + std::to_string(total) + " bytes (is /dev/shm full?)", e);
  }
  auto m = map_fd(fd, total, nullptr);
  close(fd);
  if (!m.ok()) {
    shm_unlink(name.c_str());
    return m.status();
  }
  return std::unique_ptr<SharedSegment>(new SharedSegment(name, *m, bytes));
}

StatusOr<std::unique_ptr<SharedSegment>> SharedSegment::open(const std::string& name, size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0)
    return ErrnoError(
        "opening " + shm_path(name) + " (MPI_Win_allocate_shared needs every rank of the communicator on one host)",
        errno);
  auto m = map_fd(fd, page() + bytes, nullptr);
  close(fd);
  if (!m.ok()) return m.status();
  return std::unique_ptr<SharedSegment>(new SharedSegment(name, *m, bytes));
}

SharedSegment::~SharedSegment() {
  if (map_ != nullptr) munmap(map_, page() + bytes_);
}

void SharedSegment::unlink() { shm_unlink(name_.c_str()); }

namespace {
std::vector<std::vector<char>> save(char* map, const std::vector<SharedSegment::Range>& keep) {
  std::vector<std::vector<char>> kept;
  for (const auto& r : keep) kept.emplace_back(map + r.offset, map + r.offset + r.length);
  return kept;
}
void restore(char* map, const std::vector<SharedSegment::Range>& keep, const std::vector<std::vector<char>>& kept) {
  for (size_t i = 0; i < keep.size(); ++i) std::memcpy(map + keep[i].offset, kept[i].data(), keep[i].length);
}
}  // namespace

Status SharedSegment::privatize(const std::vector<Range>& keep) {
  const auto kept = save(map_, keep);
  void* m = mmap(map_, page() + bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (m == MAP_FAILED) return ErrnoError("making the shared window segment private for the checkpoint", errno);
  restore(map_, keep, kept);
  return Status::Ok();
}

Status SharedSegment::reshare(bool leader, const std::vector<Range>& keep, int members, double timeout_s) {
  const std::string next = name_ + ".g" + std::to_string(++generation_);
  const size_t total = page() + bytes_;
  const auto kept = save(map_, keep);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int fd = -1;
  if (leader) {
    fd = shm_open(next.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return ErrnoError("creating " + shm_path(next) + " to share the window again", errno);
    // The others open it once it has its size.
    if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
      const int e = errno;
      close(fd);
      shm_unlink(next.c_str());
      return ErrnoError("sizing " + shm_path(next), e);
    }
  } else {
    for (;;) {
      fd = shm_open(next.c_str(), O_RDWR, 0600);
      struct stat st {};
      if (fd >= 0 && fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == total) break;
      if (fd >= 0) close(fd);
      fd = -1;
      if (std::chrono::steady_clock::now() >= until)
        return Timeout("the shared window segment " + shm_path(next) + " did not appear within " +
                       std::to_string(static_cast<int>(timeout_s)) +
                       " s after the checkpoint (are the window's ranks still on one host?)");
      nap();
    }
  }
  auto m = map_fd(fd, total, map_);
  close(fd);
  if (!m.ok()) return m.status();
  restore(map_, keep, kept);
  auto* h = reinterpret_cast<Header*>(map_);
  h->joined.fetch_add(1, std::memory_order_acq_rel);
  while (h->joined.load(std::memory_order_acquire) < members) {
    if (std::chrono::steady_clock::now() >= until)
      return Timeout("only " + std::to_string(h->joined.load()) + " of the " + std::to_string(members) +
                     " ranks of a shared window mapped it again after the checkpoint");
    nap();
  }
  if (leader) shm_unlink(next.c_str());
  return Status::Ok();
}

}  // namespace lz::osc
