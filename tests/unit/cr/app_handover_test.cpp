// The hand-over file of a cr=app migration (runtime/cr/app_handover.h):
// what the moving rank writes is what the new process reads, and a file
// that is damaged, cut short or another rank's is refused, saying why.
#include "cr/app_handover.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace lz::rt {
namespace {

class AppHandoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lz-handover-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file() const { return dir_ + "/handover"; }
  std::string bytes() const {
    std::ifstream in(file(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void rewrite(const std::string& b) const { std::ofstream(file(), std::ios::binary | std::ios::trunc) << b; }
  static AppHandover sample() {
    AppHandover h;
    h.job_id = "4f2a";
    h.rank = 2;
    h.safe_point = 545;
    h.migration = (uint64_t{1} << 48) + 1;
    h.next_context = 12;
    h.counters = std::string("\0c3\xff", 4);
    h.sent = {1, 2, 3, 4};
    h.received = {5, 6, 7, 8};
    crcp::Replayed small{{1, 0, 1, 7, (uint64_t{3} << 32) | 9}, "hello"};
    crcp::Replayed empty{{3, 4, 0, -5, 1}, ""};
    crcp::Replayed big{{0, 2, 0, 1, 2}, std::string(300000, 'x')};
    h.messages = {small, empty, big};
    h.comms = {{"MPI_Comm_split", 4, true, {0, 2}}, {"MPI_Comm_split", 6, false, {}}};
    return h;
  }
  std::string dir_;
};

TEST_F(AppHandoverTest, WhatIsWrittenIsRead) {
  const AppHandover h = sample();
  ASSERT_TRUE(write_app_handover(dir_, h).ok());
  EXPECT_FALSE(std::filesystem::exists(file() + ".tmp")) << "the temporary file must be renamed";
  auto r = read_app_handover(dir_, "4f2a", 2);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->safe_point, 545u);
  EXPECT_EQ(r->migration, h.migration);
  EXPECT_EQ(r->next_context, 12u);
  EXPECT_EQ(r->counters, h.counters);
  EXPECT_EQ(r->sent, h.sent);
  EXPECT_EQ(r->received, h.received);
  ASSERT_EQ(r->comms.size(), 2u);
  EXPECT_EQ(r->comms[0].call, "MPI_Comm_split");
  EXPECT_EQ(r->comms[0].context, 4u);
  EXPECT_EQ(r->comms[0].world_ranks, (std::vector<int>{0, 2}));
  EXPECT_FALSE(r->comms[1].member);
  ASSERT_EQ(r->messages.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r->messages[i].m.world_src, h.messages[i].m.world_src);
    EXPECT_EQ(r->messages[i].m.context, h.messages[i].m.context);
    EXPECT_EQ(r->messages[i].m.src, h.messages[i].m.src);
    EXPECT_EQ(r->messages[i].m.tag, h.messages[i].m.tag);
    EXPECT_EQ(r->messages[i].m.stamp, h.messages[i].m.stamp);
    EXPECT_EQ(r->messages[i].payload, h.messages[i].payload);
  }
}

TEST_F(AppHandoverTest, AnotherRankOrJobIsRefusedNamingBoth) {
  ASSERT_TRUE(write_app_handover(dir_, sample()).ok());
  auto rank = read_app_handover(dir_, "4f2a", 3);
  ASSERT_FALSE(rank.ok());
  EXPECT_NE(rank.status().message().find("rank 2 of job 4f2a, not rank 3"), std::string::npos) << rank.status().to_string();
  auto job = read_app_handover(dir_, "9999", 2);
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.status().message().find("9999"), std::string::npos) << job.status().to_string();
}

TEST_F(AppHandoverTest, DamagedOrTruncatedFilesAreRefused) {
  ASSERT_TRUE(write_app_handover(dir_, sample()).ok());
  const std::string good = bytes();
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x20;
  rewrite(flipped);
  auto r = read_app_handover(dir_, "4f2a", 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_NE(r.status().message().find(file()), std::string::npos) << "names the file: " << r.status().to_string();
  EXPECT_NE(r.status().message().find("checksum"), std::string::npos) << r.status().to_string();
  for (size_t n : {size_t{0}, size_t{5}, size_t{40}, good.size() - 9, good.size() - 1}) {
    SCOPED_TRACE(n);
    rewrite(good.substr(0, n));
    auto t = read_app_handover(dir_, "4f2a", 2);
    EXPECT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), Code::kDataLoss);
  }
  std::filesystem::remove(file());
  auto missing = read_app_handover(dir_, "4f2a", 2);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace lz::rt
