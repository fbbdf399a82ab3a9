// The file-system calls of MPI-IO (runtime/io/file_access.h): ranges read
// and written with and without data sieving, the end of the file, atomic
// mode's locks, and errors naming the call.
#include "io/file_access.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace lz::io {
namespace {

class FileAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lz-unit-io.XXXXXX";
    fd_ = mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    path_ = tmpl;
  }
  void TearDown() override {
    close(fd_);
    unlink(path_.c_str());
  }
  std::string contents() {
    std::string s(static_cast<size_t>(lseek(fd_, 0, SEEK_END)), '\0');
    EXPECT_EQ(pread(fd_, s.data(), s.size(), 0), static_cast<ssize_t>(s.size()));
    return s;
  }
  int fd_ = -1;
  std::string path_;
};

const std::vector<Segment> kStrided = {{0, 2}, {4, 2}, {8, 2}, {12, 2}};

TEST_F(FileAccess, StridedWritesLeaveTheHolesAsTheyWere) {
  ASSERT_EQ(pwrite(fd_, "................", 16, 0), 16);
  for (bool sieve : {false, true}) {
    AccessOptions o;
    o.sieve_writes = sieve;
    int err = 0;
    auto n = write_segments(fd_, kStrided, sieve ? "ABCDEFGH" : "abcdefgh", o, &err);
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(*n, 8u);
    EXPECT_EQ(contents(), sieve ? "AB..CD..EF..GH.." : "ab..cd..ef..gh..") << "sieve " << sieve;
  }
}

TEST_F(FileAccess, StridedReadsGiveThePackedBytesWithOrWithoutASieve) {
  ASSERT_EQ(pwrite(fd_, "0123456789abcdef", 16, 0), 16);
  for (bool sieve : {false, true}) {
    AccessOptions o;
    o.sieve_reads = sieve;
    char buf[9] = {};
    int err = 0;
    auto n = read_segments(fd_, kStrided, buf, o, &err);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 8u);
    EXPECT_EQ(std::string(buf), "014589cd") << "sieve " << sieve;
  }
}

TEST_F(FileAccess, AReadStopsAtTheEndOfTheFile) {
  ASSERT_EQ(pwrite(fd_, "0123456789a", 11, 0), 11);  // ends before the fourth range (12..13)
  for (bool sieve : {false, true}) {
    AccessOptions o;
    o.sieve_reads = sieve;
    char buf[8] = {};
    int err = 0;
    auto n = read_segments(fd_, kStrided, buf, o, &err);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 6u) << "sieve " << sieve;  // 01, 45, 89
    EXPECT_EQ(std::string(buf, 6), "014589");
  }
}

TEST_F(FileAccess, AReadEndingInsideARangeCountsTheBytesThere) {
  ASSERT_EQ(pwrite(fd_, "0123456789abc", 13, 0), 13);  // the fourth range (12..13) holds one byte
  for (bool sieve : {false, true}) {
    AccessOptions o;
    o.sieve_reads = sieve;
    char buf[8] = {};
    int err = 0;
    auto n = read_segments(fd_, kStrided, buf, o, &err);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 7u) << "sieve " << sieve;
    EXPECT_EQ(std::string(buf, 7), "014589c");
  }
}

TEST_F(FileAccess, ASievedWritePastTheEndReadsItsHolesAsZeros) {
  AccessOptions o;
  o.sieve_writes = true;
  int err = 0;
  ASSERT_TRUE(write_segments(fd_, kStrided, "ABCDEFGH", o, &err).ok());
  EXPECT_EQ(contents(), std::string("AB\0\0CD\0\0EF\0\0GH", 14));
}

TEST_F(FileAccess, AtomicModeTakesAndGivesBackItsLock) {
  AccessOptions o;
  o.atomic = true;
  int err = 0;
  ASSERT_TRUE(write_segments(fd_, kStrided, "abcdefgh", o, &err).ok());
  // Another process may lock the range now (the lock was released).
  pid_t child = fork();
  if (child == 0) {
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    _exit(fcntl(fd_, F_SETLK, &fl) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(FileAccess, AFailedCallIsNamedWithItsErrno) {
  const int ro = open(path_.c_str(), O_RDONLY);
  ASSERT_GE(ro, 0);
  AccessOptions o;
  int err = 0;
  auto n = write_segments(ro, kStrided, "abcdefgh", o, &err);
  close(ro);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(err, EBADF);
  EXPECT_NE(n.status().message().find("pwrite of 2 bytes at offset 0"), std::string::npos) << n.status().message();
}

}  // namespace
}  // namespace lz::io
