// Segment: an owning mapping of a shared-memory file (a tmpfs file in the
// backing directory, which is what shm_open() does on Linux, with the
// directory made a parameter). Unmapped by the destructor; the creator's
// destructor also removes the name if unlink() was not called.
//
//   LZ_ASSIGN_OR_RETURN(Segment mine, Segment::create(path, bytes));   // owner
//   LZ_ASSIGN_OR_RETURN(Segment theirs, Segment::open(path));          // peer
//   mine.unlink();  // once every peer has it mapped
#pragma once

#include <cstdint>
#include <string>

#include "lazarus/status.h"

namespace lz::transport::shm {

class Segment {
 public:
  Segment() = default;
  ~Segment() { reset(); }
  Segment(Segment&& o) noexcept;
  Segment& operator=(Segment&& o) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  // Creates `path` exclusively (mode 0600), reserves `bytes` of storage
  // (posix_fallocate: a full tmpfs is an error now, not a SIGBUS on first
  // touch) and maps it shared. The contents start zeroed.
  static StatusOr<Segment> create(const std::string& path, uint64_t bytes);
  // Maps an existing segment read-write. Refuses a file not owned by this
  // user or smaller than `min_bytes`.
  static StatusOr<Segment> open(const std::string& path, uint64_t min_bytes);

  bool mapped() const { return base_ != nullptr; }
  uint8_t* base() const { return base_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  bool linked() const { return linked_; }

  // Removes the name (creator only; the mapping stays valid). Idempotent.
  Status unlink();
  // Unmaps (and, for a creator, unlinks if still linked).
  void reset();

 private:
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  std::string path_;
  bool owner_ = false;
  bool linked_ = false;
};

}  // namespace lz::transport::shm
