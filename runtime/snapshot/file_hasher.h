// FileHasher: size and XXH3-64 checksum of a snapshot file, streamed in large
// blocks.
//
// Snapshots are large (CRIU page images of GiB per rank) and are checksummed
// twice: at commit and at every verify before a restart. The hash must never be
// the bottleneck, so files are read with read(2) in 1 MiB blocks into one
// reused, page-aligned buffer (posix_fadvise SEQUENTIAL for read-ahead) and
// hashed with XXH3-64 through libxxhash's run-time CPU dispatch (AVX2/AVX-512
// where available), which runs at memory speed: reading, not hashing, is the
// cost. 1 MiB rather than 4: the block is hashed right after read(2) copied it
// out of the page cache, and a block that still sits in L2 hashes from cache
// instead of DRAM (lz_snapshot_hash_bench's block sweep: 256 KiB-1 MiB beat
// 4 MiB by 25-30 %, and 1 MiB keeps the syscall count low for GiB files). XXH3 is not cryptographic: it detects truncation, bit rot and torn
// writes, not an attacker with write access to the snapshot directory (who
// could rewrite COMMITTED as well).
//
//   lz::snapshot::FileHasher h;
//   LZ_ASSIGN_OR_RETURN(auto d, h.hash_file(path, &progress));
//   printf("%s %llu\n", lz::snapshot::FileHasher::to_hex(d.xxh3).c_str(), d.size);
//
// Not thread-safe (the buffer is shared); use one FileHasher per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::snapshot {

class Progress;

struct FileDigest {
  uint64_t size = 0;  // bytes read up to end of file
  uint64_t xxh3 = 0;  // XXH3-64, seed 0
};

class FileHasher {
 public:
  static constexpr size_t kBlockSize = 1u << 20;
  // The name of the algorithm as recorded in COMMITTED.
  static constexpr const char* kAlgorithm = "xxh3-64";

  FileHasher();
  ~FileHasher();
  FileHasher(const FileHasher&) = delete;
  FileHasher& operator=(const FileHasher&) = delete;

  // Hashes an open descriptor from its current offset to end of file; `path`
  // is only used in error messages. `progress` (may be null) gets every block.
  StatusOr<FileDigest> hash_fd(int fd, const std::string& path, Progress* progress);
  // Opens `path` (not following a final symbolic link) and hashes it.
  StatusOr<FileDigest> hash_file(const std::string& path, Progress* progress);

  // Hash of a byte string (COMMITTED's own checksum).
  static uint64_t hash_bytes(std::string_view bytes);
  // Fixed 16 lowercase hex digits; from_hex accepts exactly that.
  static std::string to_hex(uint64_t v);
  static std::optional<uint64_t> from_hex(std::string_view s);

 private:
  struct Buffer;
  std::unique_ptr<Buffer> buf_;
};

}  // namespace lz::snapshot
