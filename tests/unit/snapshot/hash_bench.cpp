// lz_snapshot_hash_bench FILE [SIZE_MIB]: checksum throughput of the snapshot
// store next to raw read bandwidth, on the same file, same block size.
//
// Creates FILE with SIZE_MIB (default 256) MiB of pseudo-random data if it is
// missing or shorter, then measures, each best of 3:
//   read          read(2) in FileHasher::kBlockSize blocks, no hashing (page cache hot)
//   read+xxh3     FileHasher::hash_file (what commit/verify do)
//   xxh3 memory   XXH3-64 over an in-memory buffer (the hash alone)
// and, once, the cold-cache variants after posix_fadvise(DONTNEED).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

#include "snapshot/file_hasher.h"

using Clock = std::chrono::steady_clock;
using lz::snapshot::FileHasher;

namespace {

double mib_s(uint64_t bytes, double s) { return static_cast<double>(bytes) / (1024.0 * 1024.0) / s; }

double raw_read(const std::string& path, uint64_t* bytes) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) { std::perror("open"); std::exit(1); }
  std::vector<char> buf(FileHasher::kBlockSize);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  auto t0 = Clock::now();
  uint64_t n = 0;
  ssize_t r;
  while ((r = ::read(fd, buf.data(), buf.size())) > 0) n += static_cast<uint64_t>(r);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(fd);
  *bytes = n;
  return s;
}

double hashed_read(const std::string& path, uint64_t* bytes) {
  FileHasher h;
  auto t0 = Clock::now();
  auto d = h.hash_file(path, nullptr);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!d.ok()) { std::fprintf(stderr, "%s\n", d.status().to_string().c_str()); std::exit(1); }
  *bytes = d->size;
  return s;
}

// read+XXH3 with another block size, to justify FileHasher::kBlockSize.
double hashed_read_block(const std::string& path, size_t block, uint64_t* bytes) {
  int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<char> buf(block);
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  auto t0 = Clock::now();
  uint64_t n = 0;
  ssize_t r;
  while ((r = ::read(fd, buf.data(), buf.size())) > 0) {
    XXH3_64bits_update(st, buf.data(), static_cast<size_t>(r));
    n += static_cast<uint64_t>(r);
  }
  volatile uint64_t h = XXH3_64bits_digest(st);
  (void)h;
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  XXH3_freeState(st);
  ::close(fd);
  *bytes = n;
  return s;
}

void drop_cache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: %s FILE [SIZE_MIB]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  uint64_t size = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256) << 20;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) < size) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<uint64_t> block(FileHasher::kBlockSize / 8);
    uint64_t x = 88172645463325252ull;
    for (uint64_t done = 0; done < size; done += FileHasher::kBlockSize) {
      for (auto& w : block) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; w = x; }
      if (::write(fd, block.data(), FileHasher::kBlockSize) < 0) { std::perror("write"); return 1; }
    }
    ::fsync(fd);
    ::close(fd);
  }
  uint64_t bytes = 0;
  double best_read = 1e9, best_hash = 1e9;
  raw_read(path, &bytes);  // warm the cache
  for (int i = 0; i < 3; ++i) {
    best_read = std::min(best_read, raw_read(path, &bytes));
    best_hash = std::min(best_hash, hashed_read(path, &bytes));
  }
  std::vector<char> mem(bytes);
  {
    int fd = ::open(path.c_str(), O_RDONLY);
    uint64_t off = 0;
    ssize_t r;
    while (off < bytes && (r = ::pread(fd, mem.data() + off, bytes - off, static_cast<off_t>(off))) > 0) off += r;
    ::close(fd);
  }
  double best_mem = 1e9;
  volatile uint64_t sink = 0;
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    sink = FileHasher::hash_bytes(std::string_view(mem.data(), mem.size()));
    best_mem = std::min(best_mem, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  (void)sink;
  std::printf("block sweep, read+xxh3 (page cache), best of 3:\n");
  for (size_t block : {64u << 10, 256u << 10, 1u << 20, 4u << 20, 16u << 20}) {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) best = std::min(best, hashed_read_block(path, block, &bytes));
    std::printf("  %6zu KiB  %8.0f MiB/s\n", block >> 10, mib_s(bytes, best));
  }
  drop_cache(path);
  double cold_read = raw_read(path, &bytes);
  drop_cache(path);
  double cold_hash = hashed_read(path, &bytes);

  std::printf("file %s, %.0f MiB, block %zu MiB\n", path.c_str(), bytes / 1048576.0, FileHasher::kBlockSize >> 20);
  std::printf("  read (page cache)          %8.0f MiB/s\n", mib_s(bytes, best_read));
  std::printf("  read+xxh3 (page cache)     %8.0f MiB/s\n", mib_s(bytes, best_hash));
  std::printf("  xxh3 over memory           %8.0f MiB/s\n", mib_s(bytes, best_mem));
  std::printf("  read (cold, after DONTNEED)      %8.0f MiB/s\n", mib_s(bytes, cold_read));
  std::printf("  read+xxh3 (cold, after DONTNEED) %8.0f MiB/s\n", mib_s(bytes, cold_hash));
  return 0;
}
