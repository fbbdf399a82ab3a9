// `lazarus snapshot show|verify` on files written by lz::appfmt::Writer: the
// listing (text and --json) says what was written, verify passes on a good
// snapshot and names the file and the variable of a flipped bit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "damage.h"
#include "run_command.h"
#include "temp_dir.h"

namespace lz::appfmt {
namespace {

using ::testing::HasSubstr;

class SnapshotCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // A two-rank snapshot: a decomposed grid and a replicated step counter.
    std::filesystem::create_directories(snap());
    for (int rank = 0; rank < 2; ++rank) {
      auto w = Writer::create(file(rank), {.job_id = "heat.42", .rank = rank, .nranks = 2, .seq = 5, .safe_point = 50},
                              {.compress = rank == 1 ? Compress::kZstd : Compress::kNone});
      ASSERT_TRUE(w.ok()) << w.status().to_string();
      std::vector<double> grid(8 * 16, rank + 0.25);
      Variable g{"grid", {{Scalar::kFloat64, 1}}, grid.size(), {{16, 16}, {8 * rank, 0}, {8, 16}}};
      ASSERT_TRUE(w->add(g, grid.data(), grid.size() * sizeof(double)).ok());
      int64_t step = 50;
      ASSERT_TRUE(w->add({"step", {{Scalar::kInt64, 1}}, 1, {}}, &step, sizeof step).ok());
      ASSERT_TRUE(w->finish().ok());
    }
  }
  std::string snap() const { return dir_.path() + "/store/heat.42/5"; }
  std::string file(int rank) const { return snap() + "/rank." + std::to_string(rank) + ".lzck"; }
  test::CommandResult lazarus(std::vector<std::string> args) {
    args.insert(args.begin(), LZ_TEST_LAZARUS_BIN);
    return test::run_command(args, test::hermetic_env(dir_.path()));
  }
  test::TempDir dir_;
};

TEST_F(SnapshotCli, ShowListsRanksVariablesTypesShapesAndSizes) {
  auto r = lazarus({"snapshot", "show", snap()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("job heat.42, rank 0 of 2, snapshot 5, safe point 50"));
  EXPECT_THAT(r.out, HasSubstr("rank 1 of 2"));
  EXPECT_THAT(r.out, HasSubstr("grid"));
  EXPECT_THAT(r.out, HasSubstr("float64"));
  EXPECT_THAT(r.out, HasSubstr("16x16 / 8x0 / 8x16"));
  EXPECT_THAT(r.out, HasSubstr("(zstd)"));

  auto j = lazarus({"snapshot", "show", "--json", snap()});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[1]["rank"], 1);
  EXPECT_EQ(doc[1]["variables"][0]["name"], "grid");
  EXPECT_EQ(doc[1]["variables"][0]["raw_bytes"], 8 * 16 * 8);
  EXPECT_EQ(doc[1]["variables"][0]["compressed"], true);
  EXPECT_EQ(doc[0]["variables"][0]["decomposition"]["owned_start"], nlohmann::json({0, 0}));
  EXPECT_EQ(doc[0]["variables"][1]["type"], "int64");
  const auto r1 = Reader::open(file(1));
  char sum[17];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(r1->find("grid")->xxh3));
  EXPECT_EQ(doc[1]["variables"][0]["xxh3"], sum);
}

TEST_F(SnapshotCli, VerifyPassesThenNamesTheFileAndVariableOfAFlippedBit) {
  auto ok = lazarus({"snapshot", "verify", snap()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("2 files, 4 variables"));
  // One bit of rank 0's grid payload.
  const uint64_t at = Reader::open(file(0))->find("grid")->offset + 17;
  test::flip_bits(file(0), at, 0x01);
  auto bad = lazarus({"snapshot", "verify", dir_.path() + "/store"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr(file(0)));
  EXPECT_THAT(bad.err, HasSubstr("'grid'"));
  EXPECT_THAT(bad.err, HasSubstr("1 of 2 files failed"));
}

TEST_F(SnapshotCli, APathWithoutSnapshotFilesIsAClearError) {
  std::filesystem::create_directories(dir_.path() + "/empty");
  auto r = lazarus({"snapshot", "verify", dir_.path() + "/empty"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no application-level snapshot file"));
  auto m = lazarus({"snapshot", "show", dir_.path() + "/missing"});
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_THAT(m.err, HasSubstr("neither a snapshot file nor a directory"));
}

}  // namespace
}  // namespace lz::appfmt
