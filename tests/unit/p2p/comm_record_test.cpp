// The record of a cr=app rank's setup communicators (runtime/p2p/comm_record.h):
// replayed in order by a process that takes the rank's place, and a program
// that makes other or fewer communicators there is told so.
#include "p2p/comm_record.h"

#include <gtest/gtest.h>

namespace lz::rt {
namespace {

std::vector<CommRecord::Entry> setup() {
  return {{"MPI_Comm_split", 4, true, {0, 2}}, {"MPI_Comm_split", 6, false, {}}, {"MPI_Comm_dup", 8, true, {0, 1, 2}}};
}

TEST(CommRecord, ReplaysTheSameCallsInOrder) {
  CommRecord r;
  r.start_replay(setup());
  EXPECT_TRUE(r.replaying());
  auto a = r.next("MPI_Comm_split");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->context, 4u);
  EXPECT_EQ(a->world_ranks, (std::vector<int>{0, 2}));
  auto b = r.next("MPI_Comm_split");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->member) << "MPI_COMM_NULL here, its id taken all the same";
  ASSERT_TRUE(r.next("MPI_Comm_dup").ok());
  EXPECT_TRUE(r.finish_replay().ok());
  EXPECT_FALSE(r.replaying());
  EXPECT_EQ(r.entries().size(), 3u) << "the record stays: the new process may move in turn";
}

TEST(CommRecord, AnotherCallOrOneTooManyIsNamed) {
  CommRecord r;
  r.start_replay(setup());
  auto wrong = r.next("MPI_Comm_create");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("MPI_Comm_create before LZ_Restore, where the moved rank called MPI_Comm_split"),
            std::string::npos)
      << wrong.status().to_string();
  ASSERT_TRUE(r.next("MPI_Comm_split").ok());
  ASSERT_TRUE(r.next("MPI_Comm_split").ok());
  ASSERT_TRUE(r.next("MPI_Comm_dup").ok());
  EXPECT_FALSE(r.next("MPI_Comm_dup").ok()) << "one more than the moved rank made";
}

TEST(CommRecord, FewerCallsBeforeRestoreAreAnError) {
  CommRecord r;
  r.start_replay(setup());
  ASSERT_TRUE(r.next("MPI_Comm_split").ok());
  Status s = r.finish_replay();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("3 communicator(s)"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("only 1"), std::string::npos) << s.to_string();
}

TEST(CommRecord, RecordsOnlyWhileRecording) {
  CommRecord r;
  EXPECT_FALSE(r.recording());
  r.set_recording(true);
  r.count_unrecorded(1);
  r.count_unrecorded(-1);
  EXPECT_EQ(r.unrecorded(), 0);
  r.add({"MPI_Comm_dup", 4, true, {0}});
  EXPECT_EQ(r.entries().size(), 1u);
}

}  // namespace
}  // namespace lz::rt
