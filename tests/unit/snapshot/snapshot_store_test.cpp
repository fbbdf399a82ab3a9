// SnapshotStore: commit/verify, listing, modes, damaged files, interrupted
// checkpoints, fallback, pruning, the manifest, and incremental snapshots'
// dependencies (rank.<r>/DEPENDS).
#include "snapshot/snapshot_store.h"

#include <fcntl.h>
#include <cstdlib>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "lazarus/registry.h"
#include "snapshot/snapshot_params.h"
#include "snapshot_test_util.h"
#include "temp_dir.h"

namespace lz::snapshot {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace lz::snapshot::test;

constexpr uint64_t kPages = 1 << 20;

class SnapshotStoreTest : public ::testing::Test {
 protected:
  StoreOptions opts(int64_t keep = 0) {
    StoreOptions o;
    o.keep = keep;
    o.progress = Progress::Mode::kNever;
    return o;
  }
  std::string root() const { return tmp_.path() + "/snapshots"; }

  // Takes one checkpoint of a 2-rank "job": CRIU-like images per rank.
  // `depends` (optional): the text of each rank's DEPENDS file ("" for none).
  SnapshotInfo checkpoint(SnapshotStore& store, uint32_t seed = 1, const std::vector<std::string>& depends = {}) {
    auto snap = store.begin(store.next_seq());
    EXPECT_TRUE(snap.ok()) << snap.status().to_string();
    for (int r = 0; r < 2; ++r) {
      auto d = snap->rank_dir(r);
      EXPECT_TRUE(d.ok());
      write_pattern(*d + "/pages-1.img", kPages, seed * 10 + r);
      write_pattern(*d + "/core-" + std::to_string(100 + r) + ".img", 3000 + r, seed * 10 + r + 5, 0644);
      write_text(*d + "/inventory.img", "inv", 0644);
      if (static_cast<size_t>(r) < depends.size() && !depends[r].empty()) write_text(*d + "/DEPENDS", depends[r]);
    }
    auto info = store.commit(*snap, {.np = 2, .cr = "criu", .crcp = "bkmrk"});
    EXPECT_TRUE(info.ok()) << info.status().to_string();
    EXPECT_FALSE(snap->pending());
    return info.ok() ? *info : SnapshotInfo{};
  }

  lz::test::TempDir tmp_;
};

TEST_F(SnapshotStoreTest, CommitThenVerify) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_TRUE(store->writable());
  EXPECT_EQ(store->dir(), root() + "/solver.1a2b3c4d");
  EXPECT_EQ(store->next_seq(), 1u);
  SnapshotInfo info = checkpoint(*store);
  EXPECT_EQ(info.seq, 1u);
  EXPECT_EQ(info.np, 2);
  EXPECT_EQ(info.cr, "criu");
  EXPECT_EQ(info.crcp, "bkmrk");
  EXPECT_EQ(info.file_count, 6u);
  EXPECT_EQ(info.total_bytes, 2 * kPages + 3000 + 3001 + 6);
  EXPECT_EQ(info.path, store->dir() + "/1");
  EXPECT_TRUE(exists(info.path + "/COMMITTED"));
  EXPECT_FALSE(exists(store->dir() + "/1.partial"));
  Status v = store->verify(1);
  EXPECT_TRUE(v.ok()) << v.to_string();
  EXPECT_EQ(store->next_seq(), 2u);
}

TEST_F(SnapshotStoreTest, ListIsNewestFirst) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  for (uint32_t i = 1; i <= 3; ++i) checkpoint(*store, i);
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[0].seq, 3u);
  EXPECT_EQ((*l)[1].seq, 2u);
  EXPECT_EQ((*l)[2].seq, 1u);
}

TEST_F(SnapshotStoreTest, DirectoriesAre0700AndFiles0600) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  EXPECT_EQ(mode_of(root()), 0700u);
  EXPECT_EQ(mode_of(store->dir()), 0700u);
  EXPECT_EQ(mode_of(info.path), 0700u);
  EXPECT_EQ(mode_of(info.path + "/rank.0"), 0700u);
  EXPECT_EQ(mode_of(info.path + "/rank.1"), 0700u);
  // Written 0644 "by CRIU", fixed at commit.
  EXPECT_EQ(mode_of(info.path + "/rank.0/core-100.img"), 0600u);
  EXPECT_EQ(mode_of(info.path + "/rank.1/inventory.img"), 0600u);
  EXPECT_EQ(mode_of(info.path + "/rank.1/pages-1.img"), 0600u);
  EXPECT_EQ(mode_of(info.path + "/COMMITTED"), 0600u);
  EXPECT_EQ(mode_of(store->dir() + "/manifest.yaml"), 0600u);
}

TEST_F(SnapshotStoreTest, RankSubdirectoryWrittenByOthersGetsFixedModes) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  auto snap = store->begin(1);
  ASSERT_TRUE(snap.ok());
  auto d = snap->rank_dir(0);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(::mkdir((*d + "/sub").c_str(), 0755), 0);
  ::chmod((*d + "/sub").c_str(), 0755);
  write_text(*d + "/sub/app.ckpt", "data", 0666);
  auto info = store->commit(*snap, {.np = 1, .cr = "app", .crcp = "bkmrk"});
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_EQ(mode_of(info->path + "/rank.0/sub"), 0700u);
  EXPECT_EQ(mode_of(info->path + "/rank.0/sub/app.ckpt"), 0600u);
  EXPECT_TRUE(store->verify(1).ok());
}

TEST_F(SnapshotStoreTest, TruncatedFileIsRefusedNamingIt) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  std::string f = info.path + "/rank.1/pages-1.img";
  ASSERT_EQ(::truncate(f.c_str(), 4096), 0);
  Status v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot " + f + " is truncated: 4096 bytes, expected 1048576"));
}

TEST_F(SnapshotStoreTest, FlippedByteIsRefusedNamingIt) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  std::string f = info.path + "/rank.0/pages-1.img";
  int fd = ::open(f.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  unsigned char c;
  ASSERT_EQ(::pread(fd, &c, 1, 777777), 1);
  c ^= 0x01;
  ASSERT_EQ(::pwrite(fd, &c, 1, 777777), 1);
  ::close(fd);
  Status v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot " + f + " is corrupted: checksum "));
}

TEST_F(SnapshotStoreTest, MissingFileIsRefusedNamingIt) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  std::string f = info.path + "/rank.1/core-101.img";
  ASSERT_EQ(::unlink(f.c_str()), 0);
  Status v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot " + f + " is missing"));
}

TEST_F(SnapshotStoreTest, UnlistedFileIsRefusedNamingIt) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  std::string f = info.path + "/rank.0/stray.img";
  write_text(f, "not part of the checkpoint");
  Status v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot " + f + " is not listed in COMMITTED"));
}

TEST_F(SnapshotStoreTest, SymlinkInPendingSnapshotIsRefusedAtCommit) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  auto snap = store->begin(1);
  ASSERT_TRUE(snap.ok());
  auto d = snap->rank_dir(0);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(::symlink("/etc/passwd", (*d + "/link").c_str()), 0);
  auto info = store->commit(*snap, {.np = 1, .cr = "app", .crcp = "bkmrk"});
  EXPECT_EQ(info.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("rank.0/link"));
  EXPECT_TRUE(snap->pending());
  EXPECT_TRUE(store->abort(*snap).ok());
  EXPECT_FALSE(exists(store->dir() + "/1.partial"));
}

TEST_F(SnapshotStoreTest, MissingRankDirectoryIsRefusedAtCommit) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  auto snap = store->begin(1);
  ASSERT_TRUE(snap.ok());
  ASSERT_TRUE(snap->rank_dir(0).ok());
  auto info = store->commit(*snap, {.np = 2, .cr = "criu", .crcp = "bkmrk"});
  EXPECT_EQ(info.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("no rank.1 directory"));
}

TEST_F(SnapshotStoreTest, DroppedPendingSnapshotIsRemoved) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  {
    auto snap = store->begin(1);
    ASSERT_TRUE(snap.ok());
    ASSERT_TRUE(snap->rank_dir(0).ok());
    EXPECT_TRUE(exists(store->dir() + "/1.partial/rank.0"));
  }
  EXPECT_FALSE(exists(store->dir() + "/1.partial"));
}

TEST_F(SnapshotStoreTest, SequenceMustGrow) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  checkpoint(*store);
  checkpoint(*store);
  EXPECT_EQ(store->begin(2).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store->begin(1).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(store->begin(0).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(store->begin(3).ok());
}

TEST_F(SnapshotStoreTest, SecondWriterIsRefused) {
  auto a = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(a.ok());
  auto b = SnapshotStore::open(root(), sample_job(), opts());
  EXPECT_EQ(b.status().code(), Code::kUnavailable);
  EXPECT_THAT(b.status().message(), HasSubstr("pid " + std::to_string(::getpid())));
  // A reader is fine, but read-only.
  auto c = SnapshotStore::open_existing(a->dir(), opts());
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_FALSE(c->writable());
  EXPECT_EQ(c->begin(1).status().code(), Code::kUnavailable);
}

TEST_F(SnapshotStoreTest, BadJobNamesAreRefused) {
  JobRecord j = sample_job();
  j.name = "../evil";
  EXPECT_EQ(SnapshotStore::open(root(), j, opts()).status().code(), Code::kInvalidArgument);
  j = sample_job("");
  EXPECT_EQ(SnapshotStore::open(root(), j, opts()).status().code(), Code::kInvalidArgument);
}

// The launcher is killed mid-checkpoint: a child process opens the store,
// writes half a snapshot and dies by SIGKILL (no destructor runs).
TEST_F(SnapshotStoreTest, InterruptedCheckpointLeavesPreviousSnapshot) {
  std::string dir;
  {
    auto store = SnapshotStore::open(root(), sample_job(), opts(2));
    ASSERT_TRUE(store.ok());
    checkpoint(*store);
    dir = store->dir();
  }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = SnapshotStore::open(root(), sample_job(), opts(2));
    if (!store.ok()) ::_exit(3);
    auto snap = store->begin(2);
    if (!snap.ok()) ::_exit(4);
    auto d = snap->rank_dir(0);
    if (!d.ok()) ::_exit(5);
    write_pattern(*d + "/pages-1.img", 12345, 9);
    ::raise(SIGKILL);
    ::_exit(6);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
  ASSERT_TRUE(exists(dir + "/2.partial/rank.0/pages-1.img"));

  auto store = SnapshotStore::open_existing(dir, opts(2));
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_TRUE(store->writable());
  EXPECT_FALSE(exists(dir + "/2.partial")) << "stale partial snapshot not cleaned on open";
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].seq, 1u);
  std::vector<std::string> skipped;
  auto nv = store->newest_valid(&skipped);
  ASSERT_TRUE(nv.ok()) << nv.status().to_string();
  EXPECT_EQ(nv->seq, 1u);
  EXPECT_TRUE(skipped.empty());
  // The store goes on: the next checkpoint is 2 again.
  EXPECT_EQ(store->next_seq(), 2u);
  EXPECT_EQ(checkpoint(*store).seq, 2u);
}

// A partial snapshot of a live writer is a checkpoint in progress: a reader
// (restart of a still running job) must neither list it nor remove it.
TEST_F(SnapshotStoreTest, ReaderLeavesLiveWritersPartialAlone) {
  auto writer = SnapshotStore::open(root(), sample_job(), opts(2));
  ASSERT_TRUE(writer.ok());
  checkpoint(*writer);
  auto snap = writer->begin(2);
  ASSERT_TRUE(snap.ok());
  ASSERT_TRUE(snap->rank_dir(0).ok());
  ASSERT_TRUE(snap->rank_dir(1).ok());

  auto reader = SnapshotStore::open_existing(writer->dir() + "/1", opts());
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  EXPECT_FALSE(reader->writable());
  ASSERT_TRUE(reader->requested_seq().has_value());
  EXPECT_EQ(*reader->requested_seq(), 1u);
  EXPECT_TRUE(exists(writer->dir() + "/2.partial"));
  auto l = reader->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ(reader->info(2).status().code(), Code::kNotFound);
  EXPECT_THAT(reader->info(2).status().message(), HasSubstr("never committed"));
  // And the writer's commit still goes through.
  auto info = writer->commit(*snap, {.np = 2, .cr = "criu", .crcp = "bkmrk"});
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_TRUE(reader->verify(2).ok());
}

TEST_F(SnapshotStoreTest, NewestValidFallsBackPastCorruptedNewest) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  checkpoint(*store, 1);
  SnapshotInfo second = checkpoint(*store, 2);
  std::string f = second.path + "/rank.1/core-101.img";
  write_pattern(f, 3001, 777);  // same size, other bytes
  std::vector<std::string> skipped;
  auto nv = store->newest_valid(&skipped);
  ASSERT_TRUE(nv.ok()) << nv.status().to_string();
  EXPECT_EQ(nv->seq, 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_THAT(skipped[0], HasSubstr("snapshot 2: "));
  EXPECT_THAT(skipped[0], HasSubstr(f + " is corrupted"));
}

TEST_F(SnapshotStoreTest, NoValidSnapshotIsNotFoundWithReasons) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(store->newest_valid().status().code(), Code::kNotFound);
  SnapshotInfo only = checkpoint(*store);
  ASSERT_EQ(::truncate((only.path + "/rank.0/pages-1.img").c_str(), 10), 0);
  auto nv = store->newest_valid();
  EXPECT_EQ(nv.status().code(), Code::kNotFound);
  EXPECT_THAT(nv.status().message(), HasSubstr("rank.0/pages-1.img is truncated: 10 bytes"));
}

TEST_F(SnapshotStoreTest, PruningKeepsCrKeepNewest) {
  auto store = SnapshotStore::open(root(), sample_job(), opts(2));
  ASSERT_TRUE(store.ok());
  for (uint32_t i = 1; i <= 4; ++i) checkpoint(*store, i);
  EXPECT_FALSE(exists(store->dir() + "/1"));
  EXPECT_FALSE(exists(store->dir() + "/2"));
  EXPECT_TRUE(exists(store->dir() + "/3/COMMITTED"));
  EXPECT_TRUE(exists(store->dir() + "/4/COMMITTED"));
  EXPECT_FALSE(exists(store->dir() + "/2.pruning"));
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ((*l)[0].seq, 4u);
  EXPECT_EQ((*l)[1].seq, 3u);
  auto m = Manifest::read(store->dir() + "/manifest.yaml");
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->snapshots.size(), 2u);
  EXPECT_EQ(m->snapshots[0].seq, 3u);
  EXPECT_EQ(m->snapshots[1].seq, 4u);
}

TEST_F(SnapshotStoreTest, PruningKeepOneNeverRemovesTheNewCommit) {
  auto store = SnapshotStore::open(root(), sample_job(), opts(1));
  ASSERT_TRUE(store.ok());
  checkpoint(*store, 1);
  checkpoint(*store, 2);
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].seq, 2u);
  EXPECT_TRUE(store->verify(2).ok());
}

TEST_F(SnapshotStoreTest, DamagedCommitRecordDoesNotCountTowardsKeep) {
  auto store = SnapshotStore::open(root(), sample_job(), opts(2));
  ASSERT_TRUE(store.ok());
  checkpoint(*store, 1);
  SnapshotInfo s2 = checkpoint(*store, 2);
  write_text(s2.path + "/COMMITTED", "garbage");
  checkpoint(*store, 3);
  // 3 and 1 are the two good ones; the damaged 2 is left for inspection.
  EXPECT_TRUE(exists(store->dir() + "/1/COMMITTED"));
  EXPECT_TRUE(exists(store->dir() + "/2"));
  EXPECT_TRUE(exists(store->dir() + "/3/COMMITTED"));
}

TEST_F(SnapshotStoreTest, ManifestIsValidYamlWithJobAndSnapshots) {
  auto store = SnapshotStore::open(root(), sample_job(), opts(0));
  ASSERT_TRUE(store.ok());
  for (uint32_t i = 1; i <= 3; ++i) checkpoint(*store, i);
  std::string path = store->dir() + "/manifest.yaml";
  YAML::Node m = YAML::LoadFile(path);
  EXPECT_EQ(m["format"].as<std::string>(), "lazarus-job-manifest");
  EXPECT_EQ(m["version"].as<int>(), 1);
  YAML::Node job = m["job"];
  EXPECT_EQ(job["name"].as<std::string>(), "solver");
  EXPECT_EQ(job["id"].as<std::string>(), "1a2b3c4d");
  EXPECT_EQ(job["argv"].as<std::vector<std::string>>(), sample_job().argv);
  EXPECT_EQ(job["np"].as<int>(), 2);
  EXPECT_EQ(job["hosts"].as<std::vector<std::string>>(), (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(job["cwd"].as<std::string>(), "/home/alice/run");
  EXPECT_EQ(job["parameters"]["cr"].as<std::string>(), "criu");
  EXPECT_EQ(job["parameters"]["transport"].as<std::string>(), "shm,self");
  EXPECT_EQ(job["environment"]["OMP_NUM_THREADS"].as<std::string>(), "2");
  EXPECT_EQ(job["environment"]["MULTI"].as<std::string>(), "line1\nline2");
  YAML::Node snaps = m["snapshots"];
  ASSERT_TRUE(snaps.IsSequence());
  ASSERT_EQ(snaps.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(snaps[i]["seq"].as<uint64_t>(), i + 1);
    EXPECT_GT(snaps[i]["time"].as<int64_t>(), 0);
    EXPECT_EQ(snaps[i]["total_bytes"].as<uint64_t>(), 2 * kPages + 3000 + 3001 + 6);
    EXPECT_EQ(snaps[i]["file_count"].as<uint64_t>(), 6u);
  }
  // And the store reads back the same job.
  store = StatusOr<SnapshotStore>(InvalidArgument("closed"));
  auto again = SnapshotStore::open_existing(root() + "/solver.1a2b3c4d", opts());
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(again->job().argv, sample_job().argv);
  EXPECT_EQ(again->job().environment, sample_job().environment);
  EXPECT_EQ(again->job().parameters, sample_job().parameters);
}

TEST_F(SnapshotStoreTest, MalformedCommittedIsACleanErrorNamingTheFile) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo info = checkpoint(*store);
  std::string c = info.path + "/COMMITTED";
  write_text(c, "files: [ {path: \"x\n\x01\x02 garbage");
  Status v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr(c));
  std::vector<std::string> problems;
  auto l = store->list(&problems);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr(c));
  // Missing COMMITTED in a committed-looking directory.
  ASSERT_EQ(::unlink(c.c_str()), 0);
  v = store->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr(c + " is missing"));
}

TEST_F(SnapshotStoreTest, MalformedManifestIsACleanErrorNamingFileAndLine) {
  std::string dir;
  {
    auto store = SnapshotStore::open(root(), sample_job(), opts());
    ASSERT_TRUE(store.ok());
    checkpoint(*store);
    dir = store->dir();
  }
  std::string m = dir + "/manifest.yaml";
  write_text(m, "format: lazarus-job-manifest\nversion: 1\njob:\n  name: [unclosed\n");
  auto s = SnapshotStore::open_existing(dir, opts());
  EXPECT_EQ(s.status().code(), Code::kDataLoss);
  EXPECT_THAT(s.status().message(), HasSubstr(m + ":"));

  write_text(m, "format: lazarus-job-manifest\nversion: 1\njob:\n  name: x\n  id: y\n  argv: [a]\n  np: lots\n");
  s = SnapshotStore::open_existing(dir, opts());
  EXPECT_EQ(s.status().code(), Code::kDataLoss);
  EXPECT_THAT(s.status().message(), HasSubstr(m + ":7: field 'np' is not an unsigned integer: 'lots'"));

  // open() of the same job rewrites a damaged manifest from the COMMITTED files.
  auto w = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  auto back = Manifest::read(m);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->snapshots.size(), 1u);
}

TEST_F(SnapshotStoreTest, ManifestOfAnotherJobIsRefusedNamingBothJobs) {
  std::string mine, theirs;
  {
    auto a = SnapshotStore::open(root(), sample_job("aaaa1111"), opts());
    ASSERT_TRUE(a.ok());
    checkpoint(*a);
    mine = a->dir();
    auto b = SnapshotStore::open(root(), sample_job("bbbb2222"), opts());
    ASSERT_TRUE(b.ok());
    theirs = b->dir();
  }
  for (const std::string& path : {mine, mine + "/", mine + "//1", mine + "/1/"})
    ASSERT_TRUE(SnapshotStore::open_existing(path, opts()).ok()) << path;
  write_text(mine + "/manifest.yaml", read_text(theirs + "/manifest.yaml"));
  for (const std::string& path : {mine, mine + "/1"}) {
    auto s = SnapshotStore::open_existing(path, opts());
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_EQ(s.status().code(), Code::kDataLoss);
    EXPECT_THAT(s.status().message(), HasSubstr(mine + "/manifest.yaml"));
    EXPECT_THAT(s.status().message(), HasSubstr("solver.bbbb2222"));
    EXPECT_THAT(s.status().message(), HasSubstr("solver.aaaa1111"));
  }
}

TEST_F(SnapshotStoreTest, SnapshotCopiedFromAnotherJobIsRefusedNamingBothJobs) {
  auto a = SnapshotStore::open(root(), sample_job("aaaa1111"), opts());
  ASSERT_TRUE(a.ok());
  checkpoint(*a);
  auto b = SnapshotStore::open(root(), sample_job("bbbb2222"), opts());
  ASSERT_TRUE(b.ok());
  checkpoint(*b);
  EXPECT_THAT(read_text(b->dir() + "/1/COMMITTED"), HasSubstr("job: \"bbbb2222\""));
  // Job a's snapshot 1 replaced by job b's (same sizes, valid checksums).
  ASSERT_EQ(std::system(("rm -rf '" + a->dir() + "/1' && cp -a '" + b->dir() + "/1' '" + a->dir() + "/1'").c_str()), 0);
  Status v = a->verify(1);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr(a->dir() + "/1/COMMITTED"));
  EXPECT_THAT(v.message(), HasSubstr("job bbbb2222"));
  EXPECT_THAT(v.message(), HasSubstr("job aaaa1111"));
  std::vector<std::string> skipped;
  auto newest = a->newest_valid(&skipped);
  EXPECT_FALSE(newest.ok());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_THAT(skipped[0], HasSubstr("copied from another job"));
}

TEST_F(SnapshotStoreTest, OpenExistingRejectsUnrelatedDirectory) {
  auto s = SnapshotStore::open_existing(tmp_.path(), opts());
  EXPECT_EQ(s.status().code(), Code::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr("manifest.yaml"));
  EXPECT_EQ(SnapshotStore::open_existing(tmp_.path() + "/nope", opts()).status().code(), Code::kNotFound);
}

TEST_F(SnapshotStoreTest, CommitShowsProgressWhenForced) {
  FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  StoreOptions o = opts();
  o.progress = Progress::Mode::kAlways;
  o.progress_out = out;
  auto s2 = SnapshotStore::open(root(), sample_job(), o);
  ASSERT_TRUE(s2.ok());
  checkpoint(*s2);
  ASSERT_TRUE(s2->verify(1).ok());
  std::fflush(out);
  std::rewind(out);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, out)) > 0) text.append(buf, n);
  std::fclose(out);
  EXPECT_THAT(text, HasSubstr("checkpoint 1: checksumming: "));
  EXPECT_THAT(text, HasSubstr("verifying snapshot 1: "));
  EXPECT_THAT(text, HasSubstr("(100%)"));
}

// ---------------------------------------------------------------------------
// Incremental snapshots: rank.<r>/DEPENDS

TEST_F(SnapshotStoreTest, DependsAreRecordedInCommittedAndManifest) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo first = checkpoint(*store, 1);
  checkpoint(*store, 2);
  SnapshotInfo third = checkpoint(*store, 3, {"2\n\n1\n", "2\n"});
  EXPECT_EQ(third.depends, (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(first.depends.empty());
  // The DEPENDS files are part of the snapshot like any other file.
  EXPECT_EQ(third.file_count, 8u);
  std::string committed = read_text(third.path + "/COMMITTED");
  EXPECT_THAT(committed, HasSubstr("\nversion: 2\n"));
  EXPECT_THAT(committed, HasSubstr("\ndepends: [1, 2]\n"));
  EXPECT_THAT(committed, HasSubstr("{path: \"rank.0/DEPENDS\", size: 5,"));
  EXPECT_THAT(committed, HasSubstr("{path: \"rank.1/DEPENDS\", size: 2,"));
  // A self-contained snapshot's record is as before: version 1, no depends.
  std::string plain = read_text(first.path + "/COMMITTED");
  EXPECT_THAT(plain, HasSubstr("\nversion: 1\n"));
  EXPECT_THAT(plain, Not(HasSubstr("depends")));
  Status v = store->verify(3);
  EXPECT_TRUE(v.ok()) << v.to_string();

  auto i = store->info(3);
  ASSERT_TRUE(i.ok()) << i.status().to_string();
  EXPECT_EQ(i->depends, (std::vector<uint64_t>{1, 2}));
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[0].depends, (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE((*l)[1].depends.empty());

  std::string mpath = store->dir() + "/manifest.yaml";
  EXPECT_THAT(read_text(mpath), HasSubstr("file_count: 8, depends: [1, 2]}"));
  auto m = Manifest::read(mpath);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  ASSERT_EQ(m->snapshots.size(), 3u);
  EXPECT_TRUE(m->snapshots[0].depends.empty());
  EXPECT_TRUE(m->snapshots[1].depends.empty());
  EXPECT_EQ(m->snapshots[2].depends, (std::vector<uint64_t>{1, 2}));
}

TEST_F(SnapshotStoreTest, CommitIsRefusedWhenDependsNamesNoOlderCommittedSnapshot) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  checkpoint(*store, 1);
  auto try_commit = [&](uint64_t seq, const std::string& depends) -> StatusOr<SnapshotInfo> {
    auto snap = store->begin(seq);
    EXPECT_TRUE(snap.ok()) << snap.status().to_string();
    for (int r = 0; r < 2; ++r) {
      auto d = snap->rank_dir(r);
      EXPECT_TRUE(d.ok());
      write_text(*d + "/app.lzck", "data");
    }
    write_text(snap->dir() + "/rank.1/DEPENDS", depends);
    auto info = store->commit(*snap, {.np = 2, .cr = "app", .crcp = "bkmrk"});
    if (!info.ok()) {
      EXPECT_TRUE(snap->pending());
      EXPECT_TRUE(store->abort(*snap).ok());
      EXPECT_FALSE(exists(store->snapshot_dir(seq)));
      EXPECT_FALSE(exists(store->snapshot_dir(seq) + ".partial"));
    }
    return info;
  };
  const std::string rank1 = store->dir() + "/5.partial/rank.1";

  // Newer than the snapshot itself, or itself.
  auto r = try_commit(5, "1\n7\n");
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("snapshot " + rank1 + " depends on snapshot 7"));
  EXPECT_THAT(r.status().message(), HasSubstr("not older than snapshot 5"));
  r = try_commit(5, "5\n");
  EXPECT_THAT(r.status().message(), HasSubstr("depends on snapshot 5 (its DEPENDS), which is not older"));

  // Older but missing, or only a partial (never committed) one.
  r = try_commit(5, "3\n");
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("snapshot " + rank1 + " depends on snapshot 3"));
  EXPECT_THAT(r.status().message(), HasSubstr("which is not a committed snapshot of " + store->dir()));
  ASSERT_EQ(::mkdir((store->dir() + "/4.partial").c_str(), 0700), 0);
  r = try_commit(5, "4\n");
  EXPECT_THAT(r.status().message(), HasSubstr("depends on snapshot 4"));
  EXPECT_THAT(r.status().message(), HasSubstr("never committed"));
  ASSERT_EQ(::rmdir((store->dir() + "/4.partial").c_str()), 0);

  // Not a list of sequence numbers: named with its line.
  r = try_commit(5, "1\n\n 2\n");
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr(rank1 + "/DEPENDS:3: \" 2\" is not a snapshot sequence number"));
  r = try_commit(5, "1");
  EXPECT_THAT(r.status().message(), HasSubstr(rank1 + "/DEPENDS:1: the last line has no newline"));

  // And an older committed one is accepted.
  r = try_commit(5, "1\n");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->depends, (std::vector<uint64_t>{1}));
}

TEST_F(SnapshotStoreTest, PruningKeepsWhatAKeptSnapshotDependsOn) {
  std::string dir;
  {
    auto store = SnapshotStore::open(root(), sample_job(), opts(0));
    ASSERT_TRUE(store.ok());
    checkpoint(*store, 1);
    checkpoint(*store, 2);
    dir = store->dir();
  }
  auto store = SnapshotStore::open(root(), sample_job(), opts(1));
  ASSERT_TRUE(store.ok());
  // 3 depends on 2: 2 stays although cr_keep is 1; the unrelated 1 goes.
  checkpoint(*store, 3, {"2\n", "2\n"});
  EXPECT_FALSE(exists(dir + "/1"));
  EXPECT_TRUE(exists(dir + "/2/COMMITTED"));
  EXPECT_TRUE(exists(dir + "/3/COMMITTED"));
  auto m = Manifest::read(dir + "/manifest.yaml");
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->snapshots.size(), 2u);
  EXPECT_EQ(m->snapshots[0].seq, 2u);
  EXPECT_EQ(m->snapshots[1].seq, 3u);
  Status v = store->verify(3);
  EXPECT_TRUE(v.ok()) << v.to_string();
  // A self-contained 4: nothing kept needs 2 or 3 any more.
  checkpoint(*store, 4);
  EXPECT_FALSE(exists(dir + "/2"));
  EXPECT_FALSE(exists(dir + "/3"));
  EXPECT_TRUE(exists(dir + "/4/COMMITTED"));
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].seq, 4u);
}

TEST_F(SnapshotStoreTest, PruningKeepsDependenciesTransitivelyWithoutCountingThem) {
  auto store = SnapshotStore::open(root(), sample_job(), opts(2));
  ASSERT_TRUE(store.ok());
  const std::string dir = store->dir();
  checkpoint(*store, 1);
  checkpoint(*store, 2);
  // 3 needs 1; kept only as a dependency, 1 does not push 2 out of the newest two.
  checkpoint(*store, 3, {"1\n"});
  EXPECT_TRUE(exists(dir + "/1/COMMITTED"));
  EXPECT_TRUE(exists(dir + "/2/COMMITTED"));
  // 4 needs 3 which needs 1: 4 and 3 are the newest two, 1 stays through 3, 2 goes.
  checkpoint(*store, 4, {"", "3\n"});
  EXPECT_TRUE(exists(dir + "/1/COMMITTED"));
  EXPECT_FALSE(exists(dir + "/2"));
  EXPECT_TRUE(exists(dir + "/3/COMMITTED"));
  // 5 needs 4 needs 3 needs 1: all kept, and 5 verifies through the chain.
  checkpoint(*store, 5, {"4\n"});
  for (const char* s : {"1", "3", "4", "5"}) EXPECT_TRUE(exists(dir + "/" + s + "/COMMITTED")) << s;
  Status v = store->verify(5);
  EXPECT_TRUE(v.ok()) << v.to_string();
  // 6 self-contained, 7 needs 6: 5, 4, 3 and 1 go.
  checkpoint(*store, 6);
  checkpoint(*store, 7, {"6\n", "6\n"});
  auto l = store->list();
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ((*l)[0].seq, 7u);
  EXPECT_EQ((*l)[1].seq, 6u);
  EXPECT_FALSE(exists(dir + "/1"));
}

TEST_F(SnapshotStoreTest, VerifyNamesTheDamagedOrMissingDependency) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  SnapshotInfo base = checkpoint(*store, 1);
  checkpoint(*store, 2, {"1\n"});
  checkpoint(*store, 3, {"2\n", "2\n"});
  ASSERT_TRUE(store->verify(3).ok());

  std::string f = base.path + "/rank.0/pages-1.img";
  write_pattern(f, kPages, 999);  // same size, other bytes
  Status v = store->verify(2);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot 2 depends on snapshot 1, which is damaged: snapshot " + f +
                                     " is corrupted: checksum "));
  v = store->verify(3);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot 3 depends on snapshot 1 (through snapshot 2), which is damaged: "));
  EXPECT_THAT(v.message(), HasSubstr(f));

  ASSERT_EQ(std::system(("rm -rf '" + base.path + "'").c_str()), 0);
  v = store->verify(2);
  EXPECT_EQ(v.code(), Code::kDataLoss);
  EXPECT_THAT(v.message(), HasSubstr("snapshot 2 depends on snapshot 1, which is missing: snapshot " + base.path +
                                     " does not exist"));
}

TEST_F(SnapshotStoreTest, NewestValidSkipsASnapshotWhoseDependencyIsDamaged) {
  auto store = SnapshotStore::open(root(), sample_job(), opts());
  ASSERT_TRUE(store.ok());
  checkpoint(*store, 1);
  SnapshotInfo base = checkpoint(*store, 2);
  checkpoint(*store, 3, {"2\n", "2\n"});
  std::string f = base.path + "/rank.1/core-101.img";
  ASSERT_EQ(::truncate(f.c_str(), 100), 0);
  std::vector<std::string> skipped;
  auto nv = store->newest_valid(&skipped);
  ASSERT_TRUE(nv.ok()) << nv.status().to_string();
  EXPECT_EQ(nv->seq, 1u);
  EXPECT_TRUE(nv->depends.empty());
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_THAT(skipped[0], HasSubstr("snapshot 3: snapshot 3 depends on snapshot 2, which is damaged: snapshot " + f +
                                    " is truncated"));
  EXPECT_THAT(skipped[1], HasSubstr("snapshot 2: snapshot " + f + " is truncated"));

  // With the base gone altogether the reason says so.
  ASSERT_EQ(std::system(("rm -rf '" + base.path + "'").c_str()), 0);
  skipped.clear();
  nv = store->newest_valid(&skipped);
  ASSERT_TRUE(nv.ok()) << nv.status().to_string();
  EXPECT_EQ(nv->seq, 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_THAT(skipped[0], HasSubstr("snapshot 3: snapshot 3 depends on snapshot 2, which is missing"));
}

TEST(SnapshotParams, RegisteredWithDefaults) {
  lz::Registry reg;
  ASSERT_TRUE(register_snapshot_params(reg).ok());
  ASSERT_TRUE(register_snapshot_params(reg).ok());  // idempotent
  lz::ConfigOptions o;
  o.read_default_file = false;
  o.read_user_file = false;
  o.load_plugins = false;
  char* envp[] = {nullptr};
  o.envp = envp;
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_EQ(reg.params().get_int(kParamKeep), 2);
  EXPECT_EQ(store_options(reg.params()).keep, 2);
  EXPECT_EQ(reg.params().get_string(kParamRoot), "~/.lazarus/snapshots");
}

TEST(SnapshotParams, RootExpansion) {
  const char* home = std::getenv("HOME");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ(expand_snapshot_root("~/.lazarus/snapshots"), std::string(home) + "/.lazarus/snapshots");
  EXPECT_EQ(expand_snapshot_root("$HOME/x"), std::string(home) + "/x");
  EXPECT_EQ(expand_snapshot_root("/scratch/ckpt"), "/scratch/ckpt");
}

}  // namespace
}  // namespace lz::snapshot
