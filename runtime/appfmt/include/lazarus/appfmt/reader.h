// Reader: opens one rank's application-level snapshot file (writer.h has
// the layout) and reads variables back into host byte order, each checked
// against its XXH3 checksum.
//
//   auto r = lz::appfmt::Reader::open(dir + "/rank.2.lzck");
//   for (const auto& v : r->variables()) ...;          // names, types, shapes, sizes
//   LZ_RETURN_IF_ERROR(r->read("grid", buf, bytes));    // kDataLoss names file and variable
//   LZ_RETURN_IF_ERROR(r->verify());                    // every checksum
//
// open() checks the magic, the format version, the trailer and the checksums
// of the header and of the index, and that every payload lies inside the
// file: a truncated or damaged file is refused naming the file (kDataLoss),
// an unknown version naming it too (kUnimplemented). The blocks an
// incremental file leaves to its base files are read from them (opened when
// first needed; each must be of the same job and rank and the snapshot the
// index names), and the variable's checksum covers the assembled bytes, so
// a missing, replaced or damaged base file is kDataLoss naming both files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/appfmt/variable.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/status.h"

namespace lz::appfmt {

struct VariableInfo {
  Variable var;
  uint64_t offset = 0;        // of the stored payload in the file
  uint64_t stored_bytes = 0;  // on disk (after zero-block skipping and compression)
  uint64_t raw_bytes = 0;     // signature_size * count
  uint64_t xxh3 = 0;          // of the raw bytes in disk (little-endian) order
  bool compressed = false;
  uint64_t zero_blocks = 0;   // 4 KiB blocks left out
  std::vector<uint8_t> zero_bitmap;
  // Blocks [first, first + count) are held by base file `base` (an
  // incremental file); the stored payload holds the other non-zero blocks.
  struct BaseRun {
    uint64_t first = 0, count = 0;
    uint32_t base = 0;
  };
  std::vector<BaseRun> base_runs;
  uint64_t base_blocks() const;
};

// An older file an incremental file refers to.
struct BaseFile {
  std::string path;  // relative to the referring file's directory
  uint64_t seq = 0;  // its snapshot number (its header's)
};

struct ReaderOptions {
  bool pretend_big_endian_host = false;  // tests only, see WriterOptions
};

class Reader {
 public:
  static StatusOr<Reader> open(const std::string& path, const ReaderOptions& options = {});
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  const std::string& path() const;
  const Header& header() const;
  const std::vector<VariableInfo>& variables() const;
  const VariableInfo* find(const std::string& name) const;
  // The older files this one refers to (empty unless incremental).
  const std::vector<BaseFile>& bases() const;
  // Into `out` (bytes == raw_bytes), host byte order. Errors: kNotFound
  // naming the variable, kInvalidArgument for a wrong size, kDataLoss naming
  // the file and the variable (checksum, decompression, short read).
  Status read(const std::string& name, void* out, uint64_t bytes) const;
  // Checks every variable's checksum; the first failure names file and variable.
  Status verify() const;

 private:
  struct State;
  explicit Reader(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace lz::appfmt
