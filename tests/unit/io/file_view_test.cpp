// FileView (runtime/io/file_view.h): a view's data stream mapped to file
// byte ranges, the way MPI-3.1 13.3 tiles a filetype from a displacement.
#include "io/file_view.h"

#include <gtest/gtest.h>

#include <vector>

namespace lz::io {
namespace {

using lz::dt::Basic;
using lz::dt::Datatype;
using lz::dt::internal_type;

const Datatype* byte_t() { return &internal_type(Basic::kByte); }
const Datatype* int_t() { return &internal_type(Basic::kInt); }

// Owns a derived datatype for one test.
struct Owned {
  Datatype* t;
  explicit Owned(StatusOr<Datatype*> made) : t(*made) { t->commit(); }
  ~Owned() { Datatype::release(t); }
};

std::vector<Segment> map(const FileView& v, uint64_t start, uint64_t bytes) {
  std::vector<Segment> out;
  v.map(start, bytes, &out);
  return out;
}

bool same(const std::vector<Segment>& a, const std::vector<Segment>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].offset != b[i].offset || a[i].length != b[i].length) return false;
  return true;
}

TEST(FileView, TheDefaultViewIsTheFileItself) {
  FileView v(0, byte_t(), byte_t());
  EXPECT_TRUE(same(map(v, 100, 50), {{100, 50}}));
  EXPECT_EQ(v.file_offset(77), 77u);
  EXPECT_EQ(v.stream_before(1234), 1234u);
}

TEST(FileView, ADisplacementShiftsEveryRange) {
  FileView v(1000, int_t(), int_t());
  EXPECT_TRUE(same(map(v, 8, 16), {{1008, 16}}));
  EXPECT_EQ(v.stream_before(1000), 0u);
  EXPECT_EQ(v.stream_before(500), 0u);
  EXPECT_EQ(v.stream_before(1012), 12u);
}

TEST(FileView, AVectorFiletypeSkipsItsHolesTileAfterTile) {
  // 2 blocks of 2 ints, stride 4 ints, resized to 8 ints: the rank's part of
  // a file that two others share.
  Owned vec(Datatype::vector(2, 2, 4, *int_t()));
  Owned ft(Datatype::resized(*vec.t, 0, 32));
  FileView v(4, int_t(), ft.t);
  // Stream bytes 0..32: tile 0 blocks at 4+0 and 4+16, tile 1 at 36+0 ...
  EXPECT_TRUE(same(map(v, 0, 32), {{4, 8}, {20, 8}, {36, 8}, {52, 8}}));
  // Starting inside a block and ending inside another.
  EXPECT_TRUE(same(map(v, 4, 12), {{8, 4}, {20, 8}}));
  EXPECT_EQ(v.file_offset(8), 20u);
  EXPECT_EQ(v.file_offset(16), 36u);  // the end of tile 0 is the start of tile 1
  EXPECT_EQ(v.stream_before(20), 8u);
  EXPECT_EQ(v.stream_before(24), 12u);
  EXPECT_EQ(v.stream_before(30), 16u);  // a hole counts nothing
}

TEST(FileView, AdjacentRangesMerge) {
  Owned contig(Datatype::contiguous(4, *int_t()));
  FileView v(0, int_t(), contig.t);
  EXPECT_TRUE(same(map(v, 0, 64), {{0, 64}}));
}

TEST(FileView, ACopyHoldsItsOwnReferences) {
  Owned vec(Datatype::vector(3, 1, 2, *int_t()));
  FileView copy(0, byte_t(), byte_t());
  {
    FileView v(0, int_t(), vec.t);
    copy = v;
  }
  EXPECT_TRUE(same(map(copy, 0, 12), {{0, 4}, {8, 4}, {16, 4}}));
}

TEST(FileView, FiletypesThatCannotTileAreRefusedWithTheReason) {
  bool layout = false;
  Owned three_bytes(Datatype::contiguous(3, *byte_t()));
  EXPECT_NE(FileView::invalid_filetype(*int_t(), *three_bytes.t, false, &layout).find("not a multiple of the etype"),
            std::string::npos);
  EXPECT_FALSE(layout);
  const int lens[2] = {1, 1}, backwards_displs[2] = {4, 0}, negative_displs[2] = {-2, 2};
  Owned backwards(Datatype::indexed(2, lens, backwards_displs, *int_t()));
  EXPECT_NE(FileView::invalid_filetype(*int_t(), *backwards.t, false, &layout).find("decrease"), std::string::npos);
  EXPECT_TRUE(layout);
  Owned negative(Datatype::indexed(2, lens, negative_displs, *int_t()));
  EXPECT_NE(FileView::invalid_filetype(*negative.t, *negative.t, false, &layout).find("the etype"), std::string::npos);
  // Overlapping blocks: only for a file that is only read.
  const int overlap_lens[2] = {3, 1}, overlap_displs[2] = {0, 1};
  Owned overlap(Datatype::indexed(2, overlap_lens, overlap_displs, *int_t()));
  EXPECT_NE(FileView::invalid_filetype(*int_t(), *overlap.t, false, &layout).find("twice"), std::string::npos);
  EXPECT_EQ(FileView::invalid_filetype(*int_t(), *overlap.t, true, &layout), "");
  Owned vec(Datatype::vector(2, 1, 3, *int_t()));
  EXPECT_EQ(FileView::invalid_filetype(*int_t(), *vec.t, false, &layout), "");
}

}  // namespace
}  // namespace lz::io
