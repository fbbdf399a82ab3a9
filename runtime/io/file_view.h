// A file view (MPI-3.1 section 13.3): which bytes of a file a process sees,
// and in what order. The view is a displacement and a filetype tiled from
// there; the bytes the filetype's blocks cover, tile after tile, form the
// process's data stream, in which positions count etypes. Reads and writes
// name a range of that stream; map() turns it into file byte ranges.
//
//   FileView v(disp, etype, filetype);             // references held
//   std::vector<Segment> segs;
//   v.map(pos * v.etype_size(), bytes, &segs);     // stream bytes -> file ranges
//
// A filetype's blocks are in type-map order, which MPI requires to be
// non-decreasing for a filetype (checked by valid_filetype()); adjacent
// segments are merged, so a contiguous view maps any range to one segment.
// Immutable once built; copies share nothing mutable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"

namespace lz::io {

// One contiguous byte range of the file.
struct Segment {
  uint64_t offset;
  uint64_t length;
};

class FileView {
 public:
  // The default view: displacement 0, etype and filetype MPI_BYTE (given by
  // the caller: the binding's MPI_BYTE object), "native".
  FileView(int64_t disp, const lz::dt::Datatype* etype, const lz::dt::Datatype* filetype);
  FileView(const FileView& o);
  FileView& operator=(const FileView& o);
  ~FileView();

  int64_t disp() const { return disp_; }
  const lz::dt::Datatype* etype() const { return etype_; }
  const lz::dt::Datatype* filetype() const { return filetype_; }
  size_t etype_size() const { return etype_->size(); }

  // Appends the file ranges of the `bytes` stream bytes from stream byte
  // `start` on, in stream order, adjacent ones merged.
  void map(uint64_t start, uint64_t bytes, std::vector<Segment>* out) const;
  // The file offset of stream byte `pos` (MPI_File_get_byte_offset): of the
  // byte itself, or where the next tile starts when `pos` ends one.
  uint64_t file_offset(uint64_t pos) const;
  // The stream bytes that lie before file offset `offset` (inverse of
  // file_offset for a byte the view covers; for MPI_SEEK_END).
  uint64_t stream_before(uint64_t offset) const;

  // "" when `filetype` may serve as a filetype over `etype` (MPI-3.1
  // 13.3: a size that is a multiple of the etype's; in both, displacements
  // non-negative and monotonically non-decreasing, and, for a file that is
  // written, no byte twice); otherwise why not. `layout` tells the caller
  // whether the problem is the types' layout (ROMIO's MPI_ERR_IO) or their
  // sizes (MPI_ERR_TYPE).
  static std::string invalid_filetype(const lz::dt::Datatype& etype, const lz::dt::Datatype& filetype,
                                      bool overlap_allowed, bool* layout);

 private:
  void index();

  int64_t disp_;
  const lz::dt::Datatype* etype_;
  const lz::dt::Datatype* filetype_;
  std::vector<uint64_t> packed_;  // stream offset (within a tile) of each filetype block
};

}  // namespace lz::io
