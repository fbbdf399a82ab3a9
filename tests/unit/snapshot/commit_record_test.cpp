// CommitRecord, Manifest and DEPENDS parsing: round trips, and damaged or
// hostile input always gives a kDataLoss error naming the file (and line),
// never a crash or an exception.
#include "snapshot/commit_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "snapshot/depends_file.h"
#include "snapshot/file_hasher.h"
#include "snapshot/manifest.h"
#include "snapshot_test_util.h"

namespace lz::snapshot {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kPath = "/snap/job.1/3/COMMITTED";

CommitRecord sample() {
  CommitRecord r;
  r.seq = 3;
  r.meta = {.np = 2, .cr = "criu", .crcp = "bkmrk", .time = 1718000000};
  r.files = {{"rank.0/pages-1.img", 4096, 0x8d1ec0a2b5e9f4c1ull},
             {"rank.1/core \"odd\" name.img", 1024, 0x03ff2a9c0d5b7e61ull}};
  return r;
}

// Re-seals a hand-edited body with a valid commit_checksum, so the YAML and
// field checks behind the self-checksum are reached.
std::string seal(const std::string& body) {
  return body + "commit_checksum: \"" + FileHasher::to_hex(FileHasher::hash_bytes(body)) + "\"\n";
}

std::string body_of(const std::string& text) { return text.substr(0, text.rfind("commit_checksum: ")); }

TEST(CommitRecord, RoundTrip) {
  CommitRecord r = sample();
  std::string text = r.format();
  auto back = CommitRecord::parse(text, kPath);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->seq, 3u);
  EXPECT_EQ(back->meta.np, 2);
  EXPECT_EQ(back->meta.cr, "criu");
  EXPECT_EQ(back->meta.crcp, "bkmrk");
  EXPECT_EQ(back->meta.time, 1718000000);
  ASSERT_EQ(back->files.size(), 2u);
  EXPECT_EQ(back->files[1].path, "rank.1/core \"odd\" name.img");
  EXPECT_EQ(back->files[1].xxh3, 0x03ff2a9c0d5b7e61ull);
  EXPECT_EQ(back->total_bytes(), 5120u);
  EXPECT_THAT(text, HasSubstr("date: \"2024-06-10T06:13:20Z\""));
}

TEST(CommitRecord, DamageToItselfIsDetected) {
  std::string text = sample().format();
  text[text.find("4096")] = '5';
  auto r = CommitRecord::parse(text, kPath);
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(std::string(kPath) + " is corrupted"));
}

TEST(CommitRecord, TruncatedIsDetected) {
  std::string text = sample().format();
  auto r = CommitRecord::parse(text.substr(0, text.size() / 2), kPath);
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(kPath));
  EXPECT_THAT(r.status().message(), HasSubstr("truncated"));
}

TEST(CommitRecord, BadFieldNamesFileAndLine) {
  std::string body = body_of(sample().format());
  std::string bad = body;
  bad.replace(bad.find("size: 1024"), 10, "size: -12");
  auto r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(std::string(kPath) + ":15: field 'size' is not an unsigned integer"));

  bad = body;
  bad.replace(bad.find("np: 2"), 5, "np: [1, 2]");
  r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_THAT(r.status().message(), HasSubstr(std::string(kPath) + ":7: field 'np' is not a scalar"));

  bad = body;
  bad.replace(bad.find("rank.0/pages-1.img"), 18, "../../etc/passwd");
  r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_THAT(r.status().message(), HasSubstr("not a plain relative path"));

  bad = body;
  bad.replace(bad.find("total_bytes: 5120"), 17, "total_bytes: 5121");
  r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_THAT(r.status().message(), HasSubstr("the files add up to 5120"));

  bad = body;
  bad.replace(bad.find("file_count: 2"), 13, "file_count: 3");
  r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_THAT(r.status().message(), HasSubstr("file_count says 3"));

  bad = body;
  bad.replace(bad.find("version: 1"), 10, "version: 9");
  r = CommitRecord::parse(seal(bad), kPath);
  EXPECT_EQ(r.status().code(), Code::kUnimplemented);
  EXPECT_THAT(r.status().message(), HasSubstr("newer Lazarus"));

  r = CommitRecord::parse(seal("format: lazarus-job-manifest\nversion: 1\n"), kPath);
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_THAT(r.status().message(),
              HasSubstr(std::string(kPath) + ":1: format is 'lazarus-job-manifest', expected 'lazarus-snapshot-commit'"));

  r = CommitRecord::parse(seal("a: [b\n"), kPath);
  EXPECT_THAT(r.status().message(), HasSubstr(std::string(kPath) + ":"));
  EXPECT_THAT(r.status().message(), HasSubstr("malformed YAML"));
}

// Deterministic mutation fuzzing: random byte flips, deletions and
// truncations of a valid record, sealed and unsealed. Every outcome must be
// ok or a named error.
TEST(CommitRecord, MutationsNeverCrash) {
  std::string body = body_of(sample().format());
  std::mt19937 rng(12345);
  for (int i = 0; i < 3000; ++i) {
    std::string t = body;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t pos = rng() % t.size();
      switch (rng() % 4) {
        case 0: t[pos] = static_cast<char>(rng() & 0xff); break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        case 2: t.insert(pos, 1, "[]{}:,\"'\\-\n #&*!|>%@`"[rng() % 22]); break;
        case 3: t.resize(pos); break;
      }
    }
    auto r = CommitRecord::parse(i % 2 ? seal(t) : t, kPath);
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr(kPath)) << t;
    }
  }
}

// Records without dependencies are byte for byte what Lazarus wrote before
// incremental snapshots (version 1, no depends line).
TEST(CommitRecord, SelfContainedRecordIsUnchanged) {
  CommitRecord r = sample();
  r.meta.job = "1a2b3c4d";
  r.files.pop_back();
  const std::string body =
      "# Lazarus snapshot commit record: written last; its presence commits the snapshot.\n"
      "format: lazarus-snapshot-commit\n"
      "version: 1\n"
      "seq: 3\n"
      "time: 1718000000\n"
      "date: \"2024-06-10T06:13:20Z\"\n"
      "np: 2\n"
      "cr: \"criu\"\n"
      "crcp: \"bkmrk\"\n"
      "job: \"1a2b3c4d\"\n"
      "checksum: xxh3-64\n"
      "file_count: 1\n"
      "total_bytes: 4096\n"
      "files:\n"
      "  - {path: \"rank.0/pages-1.img\", size: 4096, xxh3: \"8d1ec0a2b5e9f4c1\"}\n";
  EXPECT_EQ(r.format(), seal(body));
}

TEST(CommitRecord, DependsRoundTrip) {
  CommitRecord r = sample();
  r.depends = {1, 2};
  std::string text = r.format();
  EXPECT_THAT(text, HasSubstr("\nversion: 2\n"));
  EXPECT_THAT(text, HasSubstr("\ndepends: [1, 2]\n"));
  auto back = CommitRecord::parse(text, kPath);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->depends, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(back->info("/d").depends, (std::vector<uint64_t>{1, 2}));
  // Without dependencies: absent, and read back as none.
  back = CommitRecord::parse(sample().format(), kPath);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->depends.empty());
  EXPECT_THAT(sample().format(), Not(HasSubstr("depends")));
}

TEST(CommitRecord, BadDependsNamesFileAndLine) {
  CommitRecord r = sample();
  r.depends = {1, 2};
  std::string body = body_of(r.format());
  auto with = [&](const std::string& line) {
    std::string bad = body;
    bad.replace(bad.find("depends: [1, 2]"), 15, line);
    return CommitRecord::parse(seal(bad), kPath);
  };
  auto b = with("depends: [1, 3]");
  EXPECT_EQ(b.status().code(), Code::kDataLoss);
  EXPECT_THAT(b.status().message(),
              HasSubstr(std::string(kPath) + ":10: snapshot 3 depends on snapshot 3, which is not an older snapshot"));
  EXPECT_THAT(with("depends: [2, 1]").status().message(), HasSubstr("not sorted without duplicates"));
  EXPECT_THAT(with("depends: [1, 1]").status().message(), HasSubstr("not sorted without duplicates"));
  EXPECT_THAT(with("depends: [0]").status().message(), HasSubstr("depends on snapshot 0"));
  EXPECT_THAT(with("depends: []").status().message(), HasSubstr("field 'depends' is an empty list"));
  EXPECT_THAT(with("depends: [one]").status().message(),
              HasSubstr(std::string(kPath) + ":10: an item of 'depends' is not an unsigned integer: 'one'"));
  EXPECT_THAT(with("depends: 1").status().message(), HasSubstr("field 'depends' is not a list"));
  // Dependencies came with version 2; a version 1 record has none.
  std::string v1 = body;
  v1.replace(v1.find("version: 2"), 10, "version: 1");
  auto old = CommitRecord::parse(seal(v1), kPath);
  EXPECT_EQ(old.status().code(), Code::kDataLoss);
  EXPECT_THAT(old.status().message(), HasSubstr("field 'depends' needs format version 2"));
  // A version newer than 2 is refused as before.
  std::string v3 = body;
  v3.replace(v3.find("version: 2"), 10, "version: 3");
  EXPECT_EQ(CommitRecord::parse(seal(v3), kPath).status().code(), Code::kUnimplemented);
}

TEST(DependsFile, ParsesSequenceNumbersOnePerLine) {
  constexpr const char* kDeps = "/snap/job.1/7.partial/rank.1/DEPENDS";
  auto d = parse_depends_file("3\n5\n", kDeps);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(*d, (std::vector<uint64_t>{3, 5}));
  d = parse_depends_file("\n5\n\n3\n5\n\n", kDeps);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(*d, (std::vector<uint64_t>{5, 3, 5}));
  d = parse_depends_file("", kDeps);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());

  auto bad = parse_depends_file("3\n5", kDeps);
  EXPECT_EQ(bad.status().code(), Code::kDataLoss);
  EXPECT_THAT(bad.status().message(), HasSubstr(std::string(kDeps) + ":2: the last line has no newline"));
  for (const char* text :
       {"3\n-5\n", "3\n+5\n", "3\n05\n", "3\n5 \n", "3\n5\r\n", "3\nfive\n", "3\n5,6\n", "3\n99999999999999999999\n"}) {
    bad = parse_depends_file(text, kDeps);
    EXPECT_EQ(bad.status().code(), Code::kDataLoss) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr(std::string(kDeps) + ":2: ")) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr("is not a snapshot sequence number")) << text;
  }
  EXPECT_EQ(read_depends_file("/nonexistent/DEPENDS").status().code(), Code::kNotFound);
}

TEST(Manifest, RoundTripAndMutations) {
  Manifest m;
  m.job = test::sample_job();
  SnapshotInfo i;
  i.seq = 4;
  i.time = 1718000000;
  i.np = 2;
  i.cr = "criu";
  i.crcp = "bkmrk";
  i.total_bytes = 99;
  i.file_count = 3;
  m.snapshots.push_back(i);
  i.seq = 5;
  i.depends = {2, 4};
  m.snapshots.push_back(i);
  std::string text = m.format();
  EXPECT_THAT(text, HasSubstr("file_count: 3}\n"));
  EXPECT_THAT(text, HasSubstr("file_count: 3, depends: [2, 4]}\n"));
  auto back = Manifest::parse(text, "/m.yaml");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->job.argv, m.job.argv);
  EXPECT_EQ(back->job.environment, m.job.environment);
  ASSERT_EQ(back->snapshots.size(), 2u);
  EXPECT_EQ(back->snapshots[0].seq, 4u);
  EXPECT_TRUE(back->snapshots[0].depends.empty());
  EXPECT_EQ(back->snapshots[1].seq, 5u);
  EXPECT_EQ(back->snapshots[1].depends, (std::vector<uint64_t>{2, 4}));

  std::mt19937 rng(777);
  for (int k = 0; k < 2000; ++k) {
    std::string t = text;
    size_t pos = rng() % t.size();
    if (rng() % 2) t[pos] = static_cast<char>(rng() & 0xff);
    else t.resize(pos);
    auto r = Manifest::parse(t, "/m.yaml");
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("/m.yaml")) << t;
    }
  }
}

TEST(CommitRecord, SafeRelativePaths) {
  EXPECT_TRUE(is_safe_relative_path("rank.0/pages-1.img"));
  EXPECT_FALSE(is_safe_relative_path(""));
  EXPECT_FALSE(is_safe_relative_path("/etc/passwd"));
  EXPECT_FALSE(is_safe_relative_path("rank.0/../../x"));
  EXPECT_FALSE(is_safe_relative_path("rank.0//x"));
  EXPECT_FALSE(is_safe_relative_path("rank.0/./x"));
  EXPECT_FALSE(is_safe_relative_path("a\nb"));
}

TEST(FileHasher, HexRoundTrip) {
  EXPECT_EQ(FileHasher::to_hex(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(FileHasher::from_hex("0123456789abcdef"), 0x0123456789abcdefull);
  EXPECT_FALSE(FileHasher::from_hex("0123456789ABCDEF").has_value());
  EXPECT_FALSE(FileHasher::from_hex("123").has_value());
  // XXH3-64 of the empty input (reference value of the algorithm).
  EXPECT_EQ(FileHasher::hash_bytes(""), 0x2d06800538d394c2ull);
}

}  // namespace
}  // namespace lz::snapshot
