// The file-system calls of MPI-IO (Open MPI's fbtl): moving a packed buffer
// to and from a list of file ranges (file_view.h's segments) with pread and
// pwrite, and the two ways ROMIO makes those fast or safe.
//
//  - Data sieving: a read of many small ranges close together reads their
//    whole span once (at most sieve_bytes at a time) and copies the ranges
//    out; a write does the same with a read-modify-write of the span under
//    an exclusive fcntl lock, when the caller asks for it (ROMIO's
//    romio_ds_write). The holes may be another process's data, so with
//    sieving writes on every write locks its range, sieved or not (ROMIO
//    locks only the sieving ones), and a process's writes go one at a time
//    (its I/O thread's and the program's: fcntl locks are per process).
//  - Atomic mode (MPI_File_set_atomicity): the access holds an fcntl lock
//    over its span, shared for reads and exclusive for writes, so that
//    concurrent overlapping accesses see all or nothing of each other.
//
//   AccessOptions o{.atomic = f->atomic};
//   LZ_ASSIGN_OR_RETURN(uint64_t n, read_segments(fd, segs, packed, o));  // n < total at end of file
#pragma once

#include <cstdint>
#include <vector>

#include "io/file_view.h"
#include "lazarus/status.h"

namespace lz::io {

struct AccessOptions {
  bool atomic = false;
  bool sieve_reads = true;
  bool sieve_writes = false;
  uint64_t sieve_bytes = 4ull << 20;          // reads: ROMIO's ind_rd_buffer_size default
  uint64_t sieve_write_bytes = 512ull << 10;  // writes: ROMIO's ind_wr_buffer_size default
  // Every write locks its range (and a process's writes go one at a time):
  // set wherever any process may sieve writes to the file.
  bool lock_writes = false;
};

// Writes the packed `data` (the segments' lengths summed) to the segments in
// order. Returns the bytes written (all, or an error naming the system call,
// whose errno goes to *sys_errno).
StatusOr<uint64_t> write_segments(int fd, const std::vector<Segment>& segs, const char* data, const AccessOptions& o,
                                  int* sys_errno);
// Reads the segments in order into the packed `data`. Returns the bytes read:
// fewer than asked when the file ends before the last range.
StatusOr<uint64_t> read_segments(int fd, const std::vector<Segment>& segs, char* data, const AccessOptions& o,
                                 int* sys_errno);

// The bytes of all segments.
uint64_t total_length(const std::vector<Segment>& segs);

// Holds an fcntl(2) lock over [offset, offset+length) of `fd` (length 0: to
// the end of the file) while it lives; exclusive or shared.
class RangeLock {
 public:
  RangeLock(int fd, uint64_t offset, uint64_t length, bool exclusive);
  ~RangeLock();
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;
  const Status& status() const { return status_; }

 private:
  int fd_;
  uint64_t offset_, length_;
  Status status_;
};

}  // namespace lz::io
