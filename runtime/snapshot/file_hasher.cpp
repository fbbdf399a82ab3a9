#include "snapshot/file_hasher.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <xxhash.h>
#if defined(__x86_64__) || defined(__i386__)
// libxxhash picks the widest vector unit at run time; the inline header would
// be limited to the baseline (SSE2) of the compile flags.
#include <xxh_x86dispatch.h>
#endif

#include "snapshot/progress.h"
#include "lazarus/unique_fd.h"

namespace lz::snapshot {

struct FileHasher::Buffer {
  void* data = nullptr;
  XXH3_state_t* state = nullptr;
  ~Buffer() {
    std::free(data);
    if (state) XXH3_freeState(state);
  }
};

FileHasher::FileHasher() : buf_(std::make_unique<Buffer>()) {}
FileHasher::~FileHasher() = default;

StatusOr<FileDigest> FileHasher::hash_fd(int fd, const std::string& path, Progress* progress) {
  if (!buf_->data) {
    if (::posix_memalign(&buf_->data, 4096, kBlockSize) != 0) return Internal("out of memory for the hash buffer");
    buf_->state = XXH3_createState();
    if (!buf_->state) return Internal("out of memory for the hash state");
  }
  XXH3_64bits_reset(buf_->state);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  FileDigest d;
  auto* block = static_cast<unsigned char*>(buf_->data);
  for (;;) {
    ssize_t n = ::read(fd, block, kBlockSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read " + path, errno);
    }
    if (n == 0) break;
    XXH3_64bits_update(buf_->state, block, static_cast<size_t>(n));
    d.size += static_cast<uint64_t>(n);
    if (progress) progress->add(static_cast<uint64_t>(n));
  }
  d.xxh3 = XXH3_64bits_digest(buf_->state);
  return d;
}

StatusOr<FileDigest> FileHasher::hash_file(const std::string& path, Progress* progress) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + path, errno);
  return hash_fd(fd.get(), path, progress);
}

uint64_t FileHasher::hash_bytes(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

std::string FileHasher::to_hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = kDigits[v & 0xf];
  return s;
}

std::optional<uint64_t> FileHasher::from_hex(std::string_view s) {
  if (s.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace lz::snapshot
