// Writer: one rank's application-level snapshot file (rank.<N>.lzck).
//
//   lz::appfmt::Header h{.job_id = "heat.3f2a", .rank = 2, .nranks = 4, .seq = 7, .safe_point = 700};
//   auto w = lz::appfmt::Writer::create(dir + "/rank.2.lzck", h, {.compress = Compress::kZstd});
//   LZ_RETURN_IF_ERROR(w->add(var, packed_bytes, n));   // per registered variable
//   LZ_RETURN_IF_ERROR(w->finish());                     // index, trailer, fsync
//
// An incremental file leaves out the blocks an older file of the same rank
// already holds unchanged (the caller compares block hashes, block_hashes()):
//
//   uint32_t b = w->add_base("../../6/rank.2/rank.2.lzck", 6);   // relative to this file's directory
//   std::vector<int32_t> where(blocks, -1);  where[k] = b;          // block k: in base b, not here
//   LZ_RETURN_IF_ERROR(w->add(var, packed_bytes, n, &where));
//
// The layout (all integers little-endian, whatever the host):
//   header   magic "LZAPCK01", format version, flags, rank, nranks, seq,
//            safe point, job id, XXH3 of the header
//   payloads one per variable, back to back: the variable's bytes in
//            little-endian order, cut in 4 KiB blocks; all-zero blocks are left
//            out (a bitmap in the index says which); optionally zstd of the rest
//   index    (version 2: the base files first: relative path and snapshot
//            number of each) per variable: name, signature, count,
//            decomposition, offset, stored and raw sizes, XXH3 of the raw
//            bytes, flags, zero bitmap, (version 2) runs of blocks held by
//            a base file
//   trailer  index offset and length, XXH3 of the index, magic "LZAPEND1"
// A reader finds everything from the trailer, so a restart on another rank
// count reads only the variables (and files) it needs. Large sequential
// writes; the file is created O_EXCL and, until finish() returns, a failure
// or the destructor removes it: there is never a half-written file to read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/appfmt/variable.h"
#include "lazarus/status.h"

namespace lz::appfmt {

// Files without base files are written as version 1, which every reader reads.
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint32_t kFormatVersionIncremental = 2;
inline constexpr uint64_t kBlockSize = 4096;  // zero-block and base-block granularity

struct Header {
  std::string job_id;
  int rank = 0, nranks = 1;
  uint64_t seq = 0;         // global snapshot number
  uint64_t safe_point = 0;  // LZ_Checkpoint call count of this snapshot
  // Set by the reader:
  uint32_t format_version = 0;
  bool writer_big_endian = false;  // the writing host's order (informational)
};

enum class Compress { kNone, kZstd };

struct WriterOptions {
  Compress compress = Compress::kNone;
  int zstd_level = 3;
  // Tests only: treat the host as big-endian (swap on the way to disk), so the
  // byte-swap path runs on a little-endian machine.
  bool pretend_big_endian_host = false;
};

class Writer {
 public:
  static StatusOr<Writer> create(const std::string& path, const Header& header, const WriterOptions& options = {});
  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  ~Writer();  // without finish(): removes the file

  // `packed`: v.count elements back to back in host byte order, exactly
  // signature_size(v.signature) * v.count bytes. Errors: kInvalidArgument (a
  // name given before, an empty name, a size that does not match, a
  // decomposition whose shapes disagree), kIoError naming the file.
  // `in_base` (optional): per kBlockSize block of the packed bytes, -1 to
  // store it here or the number add_base() gave the older file that holds
  // the same bytes (an all-zero block is recorded as zero either way).
  Status add(const Variable& v, const void* packed, uint64_t bytes, const std::vector<int32_t>* in_base = nullptr);
  // An older file of the same job and rank (snapshot `seq`, smaller than
  // this file's) at `relative_path` from this file's directory. Before add().
  uint32_t add_base(const std::string& relative_path, uint64_t seq);
  // The snapshots of the base files some block of this file is left to
  // (ascending): what the file depends on.
  std::vector<uint64_t> referenced_seqs() const;
  // Writes the index and trailer, fsyncs and closes. No add() after.
  Status finish();
  const std::string& path() const;

 private:
  struct State;
  explicit Writer(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// XXH3-128 of every `block`-byte block of `bytes` bytes at `data` (the last
// block may be short): what an incremental writer compares with the hashes
// of the file it refers to.
struct BlockHash {
  uint64_t lo = 0, hi = 0;
  bool operator==(const BlockHash&) const = default;
};
std::vector<BlockHash> block_hashes(const void* data, uint64_t bytes, uint64_t block = kBlockSize);

}  // namespace lz::appfmt
