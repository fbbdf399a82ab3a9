// Incremental application-level snapshot files (runtime/appfmt, format
// version 2): blocks left to older files of the same rank are read back
// from them, a chain of three files restores each state, and a missing,
// replaced or damaged base file is refused naming both files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "damage.h"
#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "temp_dir.h"

namespace lz::appfmt {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kBlocks = 40;
const Variable kVar{"field", {{Scalar::kFloat64, 1}}, kBlocks* kBlockSize / 8, {}};

Header header(uint64_t seq) { return Header{.job_id = "inc.1", .rank = 1, .nranks = 2, .seq = seq, .safe_point = seq}; }

void scribble(std::vector<unsigned char>& v, uint64_t block, unsigned seed) {
  std::mt19937 g(seed);
  for (uint64_t i = 0; i < kBlockSize; ++i) v[block * kBlockSize + i] = static_cast<unsigned char>(g() | 1);
}

class Incremental : public ::testing::Test {
 protected:
  test::TempDir dir_;
  // <dir>/<seq>/rank.1/rank.1.lzck, as in a snapshot store.
  std::string file(uint64_t seq) {
    const std::string d = dir_.path() + "/" + std::to_string(seq);
    ::mkdir(d.c_str(), 0700);
    ::mkdir((d + "/rank.1").c_str(), 0700);
    return d + "/rank.1/rank.1.lzck";
  }
  static std::string base_path(uint64_t seq) { return "../../" + std::to_string(seq) + "/rank.1/rank.1.lzck"; }

  // Writes `data` as snapshot `seq`, leaving to base snapshot origin[b] every
  // block whose hash equals prior[b]; returns the hashes and origins.
  void write(uint64_t seq, const std::vector<unsigned char>& data, std::vector<BlockHash>* prior,
             std::vector<uint64_t>* origin, const WriterOptions& o = {}) {
    auto w = Writer::create(file(seq), header(seq), o);
    ASSERT_TRUE(w.ok()) << w.status().to_string();
    const std::vector<BlockHash> now = block_hashes(data.data(), data.size());
    std::vector<int32_t> where(now.size(), -1);
    std::vector<std::pair<uint64_t, uint32_t>> added;  // (seq, base number)
    for (size_t b = 0; b < now.size(); ++b) {
      if (prior->empty() || (*prior)[b] != now[b]) {
        (*origin)[b] = seq;
        continue;
      }
      uint32_t k = UINT32_MAX;
      for (auto& [s, n] : added)
        if (s == (*origin)[b]) k = n;
      if (k == UINT32_MAX) added.emplace_back((*origin)[b], k = w->add_base(base_path((*origin)[b]), (*origin)[b]));
      where[b] = static_cast<int32_t>(k);
    }
    ASSERT_TRUE(w->add(kVar, data.data(), data.size(), &where).ok());
    ASSERT_TRUE(w->finish().ok());
    *prior = now;
  }

  std::vector<unsigned char> read(uint64_t seq, Status* st = nullptr) {
    std::vector<unsigned char> back(kVar.count * 8);
    auto r = Reader::open(file(seq));
    Status s = r.ok() ? r->read("field", back.data(), back.size()) : r.status();
    if (st != nullptr)
      *st = s;
    else
      EXPECT_TRUE(s.ok()) << s.to_string();
    return back;
  }
};

TEST_F(Incremental, AChainOfThreeFilesRestoresEachState) {
  std::vector<unsigned char> data(kVar.count * 8, 0);
  for (uint64_t b = 0; b < kBlocks; ++b)
    if (b % 10 != 9) scribble(data, b, static_cast<unsigned>(b));  // some zero blocks too
  std::vector<BlockHash> prior;
  std::vector<uint64_t> origin(kBlocks, 0);
  write(1, data, &prior, &origin);
  const auto v1 = data;
  scribble(data, 3, 100);  // 10 % of the blocks change
  scribble(data, 17, 101);
  scribble(data, 29, 102);
  scribble(data, 39, 103);
  write(2, data, &prior, &origin);
  const auto v2 = data;
  scribble(data, 17, 200);
  write(3, data, &prior, &origin);

  EXPECT_EQ(read(1), v1);
  EXPECT_EQ(read(2), v2);
  EXPECT_EQ(read(3), data);

  auto r2 = Reader::open(file(2));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->header().format_version, kFormatVersionIncremental);
  ASSERT_EQ(r2->bases().size(), 1u);
  EXPECT_EQ(r2->bases()[0].seq, 1u);
  const VariableInfo& e2 = r2->variables()[0];
  EXPECT_EQ(e2.stored_bytes, 4 * kBlockSize);    // the four changed blocks, nothing else
  EXPECT_EQ(e2.base_blocks(), kBlocks - 4 - 2);  // the others but blocks 9 and 19, still zero
  // Snapshot 3 refers to 1 and 2 directly (where each block's bytes are), not through 2.
  auto r3 = Reader::open(file(3));
  ASSERT_TRUE(r3.ok());
  ASSERT_EQ(r3->bases().size(), 2u);
  EXPECT_EQ(r3->variables()[0].stored_bytes, kBlockSize);
  EXPECT_TRUE(r3->verify().ok());
  // A file without base files is still version 1.
  auto r1 = Reader::open(file(1));
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->header().format_version, kFormatVersion);
}

TEST_F(Incremental, CompressedFilesChainToo) {
  std::vector<unsigned char> data(kVar.count * 8);
  for (uint64_t b = 0; b < kBlocks; ++b) scribble(data, b, static_cast<unsigned>(b) + 7);
  std::vector<BlockHash> prior;
  std::vector<uint64_t> origin(kBlocks, 0);
  WriterOptions z{.compress = Compress::kZstd};
  write(1, data, &prior, &origin, z);
  scribble(data, 5, 55);
  write(2, data, &prior, &origin, z);
  EXPECT_EQ(read(2), data);
}

TEST_F(Incremental, AMissingOrDamagedBaseIsNamed) {
  std::vector<unsigned char> data(kVar.count * 8);
  for (uint64_t b = 0; b < kBlocks; ++b) scribble(data, b, static_cast<unsigned>(b) + 3);
  std::vector<BlockHash> prior;
  std::vector<uint64_t> origin(kBlocks, 0);
  write(1, data, &prior, &origin);
  scribble(data, 0, 9);
  write(2, data, &prior, &origin);

  // A damaged block of the base: the assembled bytes do not match.
  test::flip_bits(file(1), 200 + 20 * kBlockSize, 0x10);
  Status st;
  read(2, &st);
  EXPECT_EQ(st.code(), Code::kDataLoss);
  EXPECT_THAT(st.message(), HasSubstr("takes unchanged blocks from " + file(1) + ", which is damaged"));

  // The base gone: both files named.
  ASSERT_EQ(::unlink(file(1).c_str()), 0);
  read(2, &st);
  EXPECT_EQ(st.code(), Code::kDataLoss);
  EXPECT_THAT(st.message(), HasSubstr(file(2) + " refers to"));
  EXPECT_THAT(st.message(), HasSubstr("(snapshot 1)"));

  // Another snapshot's file in its place.
  {
    auto w = Writer::create(file(1), header(7));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(kVar, data.data(), data.size()).ok());
    ASSERT_TRUE(w->finish().ok());
  }
  read(2, &st);
  EXPECT_EQ(st.code(), Code::kDataLoss);
  EXPECT_THAT(st.message(), HasSubstr("snapshot 7"));
}

TEST_F(Incremental, BadBaseNumbersAndNewerBasesAreRefused) {
  std::vector<unsigned char> data(kVar.count * 8, 1);
  auto w = Writer::create(file(2), header(2));
  ASSERT_TRUE(w.ok());
  std::vector<int32_t> where(kBlocks, 0);  // base 0 not added
  EXPECT_EQ(w->add(kVar, data.data(), data.size(), &where).code(), Code::kInvalidArgument);
  where.resize(3);
  w->add_base(base_path(1), 1);
  EXPECT_EQ(w->add(kVar, data.data(), data.size(), &where).code(), Code::kInvalidArgument);

  // A file that names a base of a later snapshot (a cycle) is refused on open.
  auto w5 = Writer::create(file(5), header(5));
  ASSERT_TRUE(w5.ok());
  w5->add_base(base_path(6), 6);
  std::vector<int32_t> all(kBlocks, 0);
  ASSERT_TRUE(w5->add(kVar, data.data(), data.size(), &all).ok());
  ASSERT_TRUE(w5->finish().ok());
  auto r = Reader::open(file(5));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not older than"));
}

TEST_F(Incremental, BlockHashesFollowTheBytes) {
  std::vector<unsigned char> a(3 * kBlockSize + 100, 7), b = a;
  b[kBlockSize + 5] ^= 1;
  const auto ha = block_hashes(a.data(), a.size()), hb = block_hashes(b.data(), b.size());
  ASSERT_EQ(ha.size(), 4u);
  EXPECT_EQ(ha[0], hb[0]);
  EXPECT_NE(ha[1], hb[1]);
  EXPECT_EQ(ha[2], hb[2]);
  EXPECT_EQ(ha[3], hb[3]);
}

}  // namespace
}  // namespace lz::appfmt
