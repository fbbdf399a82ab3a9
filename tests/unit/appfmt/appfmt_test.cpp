// The application-level snapshot file format (runtime/appfmt): round trips of
// every scalar type and of multi-run signatures, decomposition metadata,
// zero-block skipping, zstd, the byte-swap path, and damaged files refused
// naming the file and the variable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "damage.h"
#include "temp_dir.h"

namespace lz::appfmt {
namespace {

using ::testing::HasSubstr;

Header header() { return Header{.job_id = "test.1", .rank = 1, .nranks = 4, .seq = 3, .safe_point = 30}; }

std::vector<unsigned char> random_bytes(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(g() | 1);  // never an all-zero block
  return v;
}

uint64_t file_size(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

void flip_byte(const std::string& p, uint64_t at) { test::flip_bits(p, at, 0x10); }

class AppFmt : public ::testing::Test {
 protected:
  test::TempDir dir_;
  std::string file(const std::string& n = "rank.1.lzck") { return dir_.path() + "/" + n; }
};

TEST_F(AppFmt, EveryScalarRoundTrips) {
  for (uint8_t k = 1; k <= kLastScalar; ++k) {
    const Scalar s = static_cast<Scalar>(k);
    SCOPED_TRACE(scalar_name(s));
    Variable v{"x", {{s, 3}}, 5, {}};
    const auto data = random_bytes(signature_size(v.signature) * v.count, k);
    const std::string path = file("s" + std::to_string(k));
    {
      auto w = Writer::create(path, header());
      ASSERT_TRUE(w.ok()) << w.status().to_string();
      ASSERT_TRUE(w->add(v, data.data(), data.size()).ok());
      ASSERT_TRUE(w->finish().ok());
    }
    auto r = Reader::open(path);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->variables().size(), 1u);
    EXPECT_EQ(r->variables()[0].var.signature, v.signature);
    std::vector<unsigned char> back(data.size());
    ASSERT_TRUE(r->read("x", back.data(), back.size()).ok());
    EXPECT_EQ(back, data);
  }
}

TEST_F(AppFmt, HeaderSignatureAndDecompositionComeBack) {
  Variable grid{"grid", {{Scalar::kFloat64, 1}}, 16 * 8, {{64, 32}, {16, 8}, {16, 8}}};
  Variable part{"particle", {{Scalar::kInt32, 1}, {Scalar::kFloat64, 3}, {Scalar::kChar, 2}}, 7, {}};
  std::vector<double> g(grid.count);
  std::iota(g.begin(), g.end(), 1.5);
  const auto p = random_bytes(signature_size(part.signature) * part.count, 9);
  {
    auto w = Writer::create(file(), header());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(grid, g.data(), g.size() * sizeof(double)).ok());
    ASSERT_TRUE(w->add(part, p.data(), p.size()).ok());
    ASSERT_TRUE(w->finish().ok());
  }
  auto r = Reader::open(file());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header().job_id, "test.1");
  EXPECT_EQ(r->header().rank, 1);
  EXPECT_EQ(r->header().nranks, 4);
  EXPECT_EQ(r->header().seq, 3u);
  EXPECT_EQ(r->header().safe_point, 30u);
  EXPECT_EQ(r->header().format_version, kFormatVersion);
  const VariableInfo* gi = r->find("grid");
  ASSERT_NE(gi, nullptr);
  EXPECT_EQ(gi->var.decomposition, grid.decomposition);
  EXPECT_EQ(signature_text(r->find("particle")->var.signature), "int32,float64[3],char[2]");
  std::vector<double> gb(grid.count);
  ASSERT_TRUE(r->read("grid", gb.data(), gb.size() * sizeof(double)).ok());
  EXPECT_EQ(gb, g);
  EXPECT_TRUE(r->verify().ok());
}

TEST_F(AppFmt, ZeroBlocksAreNotStored) {
  // 64 KiB of doubles, zero but for one block: 15 of 16 blocks left out.
  Variable v{"sparse", {{Scalar::kFloat64, 1}}, 8192, {}};
  std::vector<double> d(v.count, 0.0);
  for (size_t i = 4096; i < 4096 + 512; ++i) d[i] = static_cast<double>(i);
  {
    auto w = Writer::create(file(), header());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(v, d.data(), d.size() * sizeof(double)).ok());
    ASSERT_TRUE(w->finish().ok());
  }
  auto r = Reader::open(file());
  ASSERT_TRUE(r.ok());
  const VariableInfo& e = r->variables()[0];
  EXPECT_EQ(e.zero_blocks, 15u);
  EXPECT_EQ(e.stored_bytes, kBlockSize);
  EXPECT_LT(file_size(file()), 8 * 1024u);
  std::vector<double> back(v.count, -1.0);
  ASSERT_TRUE(r->read("sparse", back.data(), back.size() * sizeof(double)).ok());
  EXPECT_EQ(back, d);
}

TEST_F(AppFmt, ZstdShrinksCompressibleDataAndRoundTrips) {
  Variable v{"ramp", {{Scalar::kInt32, 1}}, 100000, {}};
  std::vector<int32_t> d(v.count);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int32_t>(i % 100 + 1);
  for (Compress c : {Compress::kNone, Compress::kZstd}) {
    const std::string path = file(c == Compress::kZstd ? "z" : "plain");
    {
      auto w = Writer::create(path, header(), {.compress = c});
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE(w->add(v, d.data(), d.size() * 4).ok());
      ASSERT_TRUE(w->finish().ok());
    }
    auto r = Reader::open(path);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->variables()[0].compressed, c == Compress::kZstd);
    if (c == Compress::kZstd) {
      EXPECT_LT(r->variables()[0].stored_bytes, d.size() * 4 / 10);
    }
    std::vector<int32_t> back(v.count);
    ASSERT_TRUE(r->read("ramp", back.data(), back.size() * 4).ok());
    EXPECT_EQ(back, d);
  }
}

TEST_F(AppFmt, ByteSwapPathSwapsEachScalarAndRoundTrips) {
  // One element: int16, float64, complex64 (two halves), char[2].
  Variable v{"mixed", {{Scalar::kInt16, 1}, {Scalar::kFloat64, 1}, {Scalar::kComplex64, 1}, {Scalar::kChar, 2}}, 2, {}};
  const auto d = random_bytes(signature_size(v.signature) * v.count, 3);
  {
    auto w = Writer::create(file(), header(), {.pretend_big_endian_host = true});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->add(v, d.data(), d.size()).ok());
    ASSERT_TRUE(w->finish().ok());
  }
  // A "big-endian" reader gets the data back as written.
  auto big = Reader::open(file(), {.pretend_big_endian_host = true});
  ASSERT_TRUE(big.ok());
  EXPECT_TRUE(big->header().writer_big_endian);
  std::vector<unsigned char> back(d.size());
  ASSERT_TRUE(big->read("mixed", back.data(), back.size()).ok());
  EXPECT_EQ(back, d);
  // A little-endian reader sees every scalar byte-reversed, with its own width.
  auto little = Reader::open(file());
  ASSERT_TRUE(little.ok());
  ASSERT_TRUE(little->read("mixed", back.data(), back.size()).ok());
  const size_t elem = 2 + 8 + 8 + 2;
  for (size_t e = 0; e < 2; ++e) {
    const unsigned char* a = d.data() + e * elem;
    const unsigned char* b = back.data() + e * elem;
    EXPECT_EQ(b[0], a[1]);
    EXPECT_EQ(b[1], a[0]);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(b[2 + i], a[2 + 7 - i]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b[10 + i], a[10 + 3 - i]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b[14 + i], a[14 + 3 - i]);
    EXPECT_EQ(b[18], a[18]);
    EXPECT_EQ(b[19], a[19]);
  }
}

// Writes "a" (1 KiB) then "b" (1 KiB) and returns the offset of b's payload.
uint64_t write_two(const std::string& path) {
  Variable a{"a", {{Scalar::kUInt8, 1}}, 1024, {}}, b{"b", {{Scalar::kUInt8, 1}}, 1024, {}};
  const auto da = random_bytes(1024, 1), db = random_bytes(1024, 2);
  auto w = Writer::create(path, header());
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE(w->add(a, da.data(), da.size()).ok());
  EXPECT_TRUE(w->add(b, db.data(), db.size()).ok());
  EXPECT_TRUE(w->finish().ok());
  return Reader::open(path)->find("b")->offset;
}

TEST_F(AppFmt, FlippedPayloadBitNamesFileAndVariable) {
  const uint64_t b_at = write_two(file());
  flip_byte(file(), b_at + 100);
  auto r = Reader::open(file());
  ASSERT_TRUE(r.ok()) << r.status().to_string();  // the index is intact
  std::vector<unsigned char> buf(1024);
  EXPECT_TRUE(r->read("a", buf.data(), buf.size()).ok());
  Status s = r->read("b", buf.data(), buf.size());
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr(file()));
  EXPECT_THAT(s.message(), HasSubstr("'b'"));
  Status v = r->verify();
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("'b'"));
}

TEST_F(AppFmt, DamagedIndexOrHeaderNamesTheFile) {
  write_two(file("idx"));
  flip_byte(file("idx"), file_size(file("idx")) - 40);  // inside the index
  auto r = Reader::open(file("idx"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(file("idx")));
  write_two(file("hdr"));
  flip_byte(file("hdr"), 20);  // inside the header (nranks)
  auto h = Reader::open(file("hdr"));
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.status().message(), HasSubstr("header checksum"));
}

TEST_F(AppFmt, TruncatedFileIsRefused) {
  write_two(file());
  ASSERT_EQ(truncate(file().c_str(), static_cast<off_t>(file_size(file()) - 10)), 0);
  auto r = Reader::open(file());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(file()));
  EXPECT_THAT(r.status().message(), HasSubstr("truncated"));
}

TEST_F(AppFmt, WrongMagicAndFutureVersionAreRefused) {
  { std::ofstream(file("junk")) << "not a snapshot at all, but long enough to have a trailer......"; }
  auto j = Reader::open(file("junk"));
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.status().message(), HasSubstr("bad magic"));
  write_two(file("v"));
  flip_byte(file("v"), 8);  // the version field (1 -> 17)
  auto v = Reader::open(file("v"));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kUnimplemented);
  EXPECT_THAT(v.status().message(), HasSubstr("format version 17"));
}

TEST_F(AppFmt, BadVariablesAreRefusedAndAnUnfinishedFileIsRemoved) {
  {
    auto w = Writer::create(file(), header());
    ASSERT_TRUE(w.ok());
    const auto d = random_bytes(64, 1);
    Variable v{"v", {{Scalar::kInt32, 1}}, 16, {}};
    EXPECT_TRUE(w->add(v, d.data(), 64).ok());
    EXPECT_EQ(w->add(v, d.data(), 64).code(), Code::kInvalidArgument);  // the same name twice
    Variable wrong{"w", {{Scalar::kInt32, 1}}, 15, {}};
    EXPECT_THAT(w->add(wrong, d.data(), 64).message(), HasSubstr("60 bytes"));
    Variable outside{"o", {{Scalar::kInt32, 1}}, 16, {{8, 8}, {4, 0}, {8, 2}}};
    EXPECT_THAT(w->add(outside, d.data(), 64).message(), HasSubstr("leaves the global array"));
    EXPECT_EQ(access(file().c_str(), F_OK), 0);
  }  // destroyed without finish()
  EXPECT_NE(access(file().c_str(), F_OK), 0) << "an unfinished file was left behind";
  ASSERT_TRUE(Writer::create(file(), header()).ok());                  // created and dropped again
  auto again = Writer::create(file(), header());
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->finish().ok());
  auto clash = Writer::create(file(), header());  // never overwrites a finished file
  EXPECT_FALSE(clash.ok());
}

TEST_F(AppFmt, MissingVariableAndWrongSizeAreNamed) {
  write_two(file());
  auto r = Reader::open(file());
  ASSERT_TRUE(r.ok());
  std::vector<unsigned char> buf(1024);
  Status s = r->read("nope", buf.data(), buf.size());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("'nope'"));
  EXPECT_EQ(r->read("a", buf.data(), 1000).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lz::appfmt
