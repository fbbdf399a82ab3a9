#include "io/file_view.h"

#include <algorithm>

namespace lz::io {

using lz::dt::Datatype;

FileView::FileView(int64_t disp, const Datatype* etype, const Datatype* filetype)
    : disp_(disp), etype_(etype), filetype_(filetype) {
  const_cast<Datatype*>(etype_)->retain();
  const_cast<Datatype*>(filetype_)->retain();
  index();
}

FileView::FileView(const FileView& o) : disp_(o.disp_), etype_(o.etype_), filetype_(o.filetype_), packed_(o.packed_) {
  const_cast<Datatype*>(etype_)->retain();
  const_cast<Datatype*>(filetype_)->retain();
}

FileView& FileView::operator=(const FileView& o) {
  if (this == &o) return *this;
  const_cast<Datatype*>(o.etype_)->retain();
  const_cast<Datatype*>(o.filetype_)->retain();
  Datatype::release(etype_);
  Datatype::release(filetype_);
  disp_ = o.disp_;
  etype_ = o.etype_;
  filetype_ = o.filetype_;
  packed_ = o.packed_;
  return *this;
}

FileView::~FileView() {
  Datatype::release(etype_);
  Datatype::release(filetype_);
}

void FileView::index() {
  packed_.clear();
  uint64_t at = 0;
  for (const Datatype::Block& b : filetype_->blocks()) {
    packed_.push_back(at);
    at += b.length;
  }
}

void FileView::map(uint64_t start, uint64_t bytes, std::vector<Segment>* out) const {
  const auto& blocks = filetype_->blocks();
  const uint64_t tile_bytes = filetype_->size();
  if (bytes == 0 || tile_bytes == 0) return;
  const uint64_t extent = static_cast<uint64_t>(filetype_->extent());
  uint64_t tile = start / tile_bytes;
  uint64_t in_tile = start % tile_bytes;
  size_t j = static_cast<size_t>(std::upper_bound(packed_.begin(), packed_.end(), in_tile) - packed_.begin()) - 1;
  auto append = [out](uint64_t off, uint64_t len) {
    if (!out->empty() && out->back().offset + out->back().length == off)
      out->back().length += len;
    else
      out->push_back({off, len});
  };
  if (filetype_->is_contiguous()) {  // one block per tile, tiles adjacent: one range
    append(static_cast<uint64_t>(disp_ + filetype_->true_lb()) + tile * extent + in_tile, bytes);
    return;
  }
  while (bytes > 0) {
    const Datatype::Block& b = blocks[j];
    const uint64_t skip = in_tile - packed_[j];
    const uint64_t len = std::min<uint64_t>(b.length - skip, bytes);
    append(static_cast<uint64_t>(disp_ + b.offset) + tile * extent + skip, len);
    bytes -= len;
    in_tile += len;
    if (++j == blocks.size()) {
      j = 0;
      in_tile = 0;
      ++tile;
    }
  }
}

uint64_t FileView::file_offset(uint64_t pos) const {
  const uint64_t tile_bytes = filetype_->size();
  if (tile_bytes == 0) return static_cast<uint64_t>(disp_);
  const uint64_t tile = pos / tile_bytes;
  const uint64_t in_tile = pos % tile_bytes;
  const size_t j = static_cast<size_t>(std::upper_bound(packed_.begin(), packed_.end(), in_tile) - packed_.begin()) - 1;
  const Datatype::Block& b = filetype_->blocks()[j];
  return static_cast<uint64_t>(disp_ + b.offset) + tile * static_cast<uint64_t>(filetype_->extent()) +
         (in_tile - packed_[j]);
}

uint64_t FileView::stream_before(uint64_t offset) const {
  const uint64_t tile_bytes = filetype_->size();
  if (tile_bytes == 0 || offset <= static_cast<uint64_t>(disp_)) return 0;
  const uint64_t extent = static_cast<uint64_t>(filetype_->extent());
  const uint64_t rel = offset - static_cast<uint64_t>(disp_);
  const uint64_t tile = extent > 0 ? rel / extent : 0;
  const int64_t in = static_cast<int64_t>(rel - tile * extent);
  uint64_t n = tile * tile_bytes;
  const auto& blocks = filetype_->blocks();
  for (size_t j = 0; j < blocks.size(); ++j) {
    if (blocks[j].offset >= in) break;
    n += std::min<uint64_t>(blocks[j].length, static_cast<uint64_t>(in - blocks[j].offset));
  }
  return n;
}

namespace {

// Why a type's blocks cannot lay out a view, or "".
std::string layout_problem(const char* which, const Datatype& t, bool overlap_allowed) {
  ptrdiff_t start = 0, end = 0;
  for (const Datatype::Block& b : t.blocks()) {
    if (b.offset < 0)
      return std::string("the ") + which + " " + t.name() + " has a negative displacement (" +
             std::to_string(b.offset) + ")";
    if (b.offset < start)
      return std::string("the ") + which + "'s displacements decrease (" + std::to_string(b.offset) + " after " +
             std::to_string(start) + "): they must be monotonically non-decreasing";
    if (b.offset < end && !overlap_allowed)
      return std::string("the ") + which + " " + t.name() + " covers bytes " + std::to_string(b.offset) + " to " +
             std::to_string(end) + " twice, which only a file opened MPI_MODE_RDONLY may";
    start = b.offset;
    end = std::max(end, b.offset + static_cast<ptrdiff_t>(b.length));
  }
  return "";
}

}  // namespace

std::string FileView::invalid_filetype(const Datatype& etype, const Datatype& filetype, bool overlap_allowed,
                                       bool* layout) {
  *layout = false;
  if (etype.size() == 0) return "the etype " + etype.name() + " has size 0";
  if (filetype.size() == 0) return "the filetype " + filetype.name() + " has size 0";
  if (filetype.size() % etype.size() != 0)
    return "the filetype's size (" + std::to_string(filetype.size()) + " bytes) is not a multiple of the etype's (" +
           std::to_string(etype.size()) + ")";
  if (filetype.extent() <= 0) return "the filetype's extent is not positive";
  *layout = true;
  std::string why = layout_problem("etype", etype, overlap_allowed);
  if (why.empty()) why = layout_problem("filetype", filetype, overlap_allowed);
  return why;
}

}  // namespace lz::io
