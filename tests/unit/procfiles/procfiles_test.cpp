// lazarus/procfiles: the record of a process's files, finding them in /proc,
// and putting them back before a restart (file_record.h, file_scan.h,
// file_rollback.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "lazarus/procfiles/file_record.h"
#include "lazarus/procfiles/file_rollback.h"
#include "lazarus/procfiles/file_scan.h"
#include "temp_dir.h"

namespace lz::procfiles {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

const FileRecord* find(const ProcessFiles& pf, const std::string& path) {
  for (const auto& f : pf.files)
    if (f.path == path) return &f;
  return nullptr;
}

// A record of `path` as scan_process() makes it, from the file as it is now.
FileRecord record_of(const std::string& path, Action action, bool written = true) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  FileRecord f;
  f.path = path;
  f.written = written;
  f.size = static_cast<uint64_t>(st.st_size);
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  f.mode = st.st_mode;
  f.action = action;
  f.holders.push_back({getpid(), 5, O_WRONLY | O_APPEND, f.size, ""});
  return f;
}

// Writes <snap>/rank.<r>/lazarus-files.yaml with `files`.
void write_rank(const lz::test::TempDir& snap, int rank, std::vector<FileRecord> files, std::string cwd = "/") {
  const std::string dir = snap.mkdir("rank." + std::to_string(rank));
  ProcessFiles pf;
  pf.pid = 100 + rank;
  pf.cwd = cwd;
  pf.files = std::move(files);
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(write_process_files(fd, pf).ok());
  close(fd);
}

TEST(FileRecord, RoundTripsEveryField) {
  lz::test::TempDir dir;
  ProcessFiles pf;
  pf.pid = 4242;
  pf.cwd = "/work/with \"quotes\" and spaces";
  pf.policy = Policy::kCopy;
  pf.copy_max = 12345;
  FileRecord f;
  f.path = "/tmp/a log:with\ttab";
  f.written = true;
  f.mapped_shared = true;
  f.size = 99;
  f.dev = 7;
  f.ino = 8;
  f.mtime_ns = 1700000000123456789;
  f.mode = 0100644;
  f.action = Action::kCopy;
  f.copy = "lazarus-files/0";
  f.note = "why";
  f.holders = {{4242, 3, O_RDWR, 17, ""}, {4243, -1, 0, 0, "rw-s"}};
  pf.files.push_back(f);
  int fd = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(write_process_files(fd, pf).ok());
  close(fd);
  auto back = read_process_files(dir.path());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->cwd, pf.cwd);
  EXPECT_EQ(back->policy, Policy::kCopy);
  EXPECT_EQ(back->copy_max, 12345u);
  ASSERT_EQ(back->files.size(), 1u);
  const FileRecord& g = back->files[0];
  EXPECT_EQ(g.path, f.path);
  EXPECT_TRUE(g.written);
  EXPECT_TRUE(g.mapped_shared);
  EXPECT_EQ(g.size, 99u);
  EXPECT_EQ(g.ino, 8u);
  EXPECT_EQ(g.mtime_ns, f.mtime_ns);
  EXPECT_EQ(g.action, Action::kCopy);
  EXPECT_EQ(g.copy, "lazarus-files/0");
  EXPECT_EQ(g.note, "why");
  ASSERT_EQ(g.holders.size(), 2u);
  EXPECT_EQ(g.holders[0].pos, 17u);
  EXPECT_EQ(g.holders[1].fd, -1);
  EXPECT_EQ(g.holders[1].map, "rw-s");
  EXPECT_NE(describe(g).find("copy (lazarus-files/0, 99 bytes)"), std::string::npos) << describe(g);
}

TEST(FileRecord, MissingIsNotFoundAndDamagedNamesTheFile) {
  lz::test::TempDir dir;
  EXPECT_EQ(read_process_files(dir.path()).status().code(), Code::kNotFound);
  dir.write(kRecordFile, "format: lazarus-files\nversion: 1\npid: [\n");
  auto bad = read_process_files(dir.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kDataLoss);
  EXPECT_NE(bad.status().message().find(kRecordFile), std::string::npos) << bad.status().message();
  dir.write(kRecordFile,
            "format: lazarus-files\nversion: 1\npid: 1\ncwd: /\npolicy: truncate\ncopy_max: 1\nfiles:\n"
            "  - {path: /a, written: true, mapped_shared: false, size: 1, dev: 1, ino: 1, mtime_ns: 1, mode: 1, "
            "action: copy, copy: ../../etc/passwd, holders: []}\n");
  bad = read_process_files(dir.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not a path inside"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(parse_policy("append").ok());
}

TEST(FileScan, FindsWrittenReadAndMappedFilesOfTheProcessAndItsChild) {
  lz::test::TempDir dir;
  const std::string log = dir.write("log", "one\n");
  const std::string input = dir.write("input", "data\n");
  const std::string mapped = dir.write("mapped", std::string(4096, 'm'));
  const std::string runtime = dir.write("lz-runtime-seg", std::string(4096, 'r'));
  const std::string child_file = dir.path() + "/child-out";
  const std::string skipped = dir.write("skipped", "x");
  const std::string deleted = dir.write("deleted", "gone");
  int wfd = open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_EQ(write(wfd, "two\n", 4), 4);
  int rfd = open(input.c_str(), O_RDONLY);
  int mfd = open(mapped.c_str(), O_RDWR);
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  ASSERT_NE(m, MAP_FAILED);
  close(mfd);  // the mapping alone holds it
  int tfd = open(runtime.c_str(), O_RDWR);
  void* t = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, tfd, 0);
  ASSERT_NE(t, MAP_FAILED);
  close(tfd);
  add_runtime_files(dir.path() + "/lz-runtime-*");
  int dfd = open(deleted.c_str(), O_WRONLY);
  unlink(deleted.c_str());
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  if (child == 0) {
    int cfd = open(child_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    (void)!write(cfd, "child\n", 6);
    (void)!write(go[1], "x", 1);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(go[0], &c, 1), 1);
  int sfd = open(skipped.c_str(), O_WRONLY);  // after the fork: the child has no copy

  ScanOptions o;
  o.skip_fds = {sfd};
  auto pf = scan_process(getpid(), o);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(pf.ok()) << pf.status().message();
  EXPECT_EQ(pf->pid, getpid());
  const FileRecord* l = find(*pf, log);
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->written);
  EXPECT_EQ(l->action, Action::kTruncate);
  EXPECT_EQ(l->size, 8u);
  ASSERT_EQ(l->holders.size(), 2u) << "this process's descriptor, and the child's copy of it";
  EXPECT_EQ(l->holders[0].pid, getpid()) << "the root comes first";
  EXPECT_EQ(l->holders[1].pid, child);
  EXPECT_EQ(l->holders[0].fd, wfd);
  EXPECT_EQ(l->holders[0].pos, 8u);
  EXPECT_TRUE(l->holders[0].flags & O_APPEND);
  const FileRecord* in = find(*pf, input);
  ASSERT_NE(in, nullptr);
  EXPECT_FALSE(in->written);
  EXPECT_EQ(in->action, Action::kCheck);
  const FileRecord* mp = find(*pf, mapped);
  ASSERT_NE(mp, nullptr);
  EXPECT_TRUE(mp->mapped_shared);
  EXPECT_EQ(mp->action, Action::kCopy) << "a truncation cannot undo pages written in place";
  EXPECT_FALSE(mp->note.empty());
  const FileRecord* ch = find(*pf, child_file);
  ASSERT_NE(ch, nullptr) << "a child's file";
  EXPECT_EQ(ch->holders[0].pid, child);
  EXPECT_EQ(find(*pf, runtime), nullptr) << "the runtime's own segment";
  EXPECT_EQ(find(*pf, skipped), nullptr) << "a descriptor the caller skips";
  EXPECT_EQ(find(*pf, deleted), nullptr) << "CRIU saves a deleted file itself";
  munmap(m, 4096);
  munmap(t, 4096);
  close(wfd);
  close(rfd);
  close(sfd);
  close(dfd);
}

TEST(FileScan, PolicyDecidesAndCopiesAreKeptUpToTheLimit) {
  lz::test::TempDir dir;
  const std::string small = dir.write("small", "small contents\n");
  const std::string big = dir.write("big", std::string(10000, 'b'));
  int a = open(small.c_str(), O_RDWR);
  int b = open(big.c_str(), O_RDWR);
  ScanOptions o;
  o.policy = Policy::kCopy;
  o.copy_max = 4096;
  o.children = false;
  auto pf = scan_process(getpid(), o);
  ASSERT_TRUE(pf.ok());
  ASSERT_NE(find(*pf, small), nullptr);
  EXPECT_EQ(find(*pf, small)->action, Action::kCopy);
  ASSERT_NE(find(*pf, big), nullptr);
  EXPECT_EQ(find(*pf, big)->action, Action::kTruncate);
  EXPECT_NE(find(*pf, big)->note.find("cr_files_copy_max"), std::string::npos);
  const std::string snap = dir.mkdir("snap");
  int sfd = open(snap.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(keep_copies(*pf, sfd).ok());
  close(sfd);
  const FileRecord* s = find(*pf, small);
  ASSERT_FALSE(s->copy.empty());
  EXPECT_EQ(slurp(snap + "/" + s->copy), "small contents\n");
  EXPECT_TRUE(find(*pf, big)->copy.empty());

  o.policy = Policy::kKeep;
  pf = scan_process(getpid(), o);
  ASSERT_TRUE(pf.ok());
  EXPECT_EQ(find(*pf, small)->action, Action::kKeep);
  close(a);
  close(b);
}

TEST(FileRollback, TruncatesWhatGrewAndReportsIt) {
  lz::test::TempDir work, snap;
  const std::string log = work.write("log", "line 1\nline 2\n");
  write_rank(snap, 0, {record_of(log, Action::kTruncate)});
  spit(log, "line 1\nline 2\nline 3 (after the checkpoint)\n");
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok()) << rb.status().message();
  auto r = rb->apply(0, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(slurp(log), "line 1\nline 2\n");
  ASSERT_EQ(r->done.size(), 1u);
  EXPECT_NE(r->done[0].find("truncated"), std::string::npos) << r->done[0];
  // Again: nothing left to do.
  r = rb->apply(0, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->done.empty());
}

TEST(FileRollback, RefusesAFileThatShrankVanishedOrWasReplacedWithoutACopy) {
  lz::test::TempDir work, snap;
  const std::string shrank = work.write("shrank", "0123456789");
  const std::string gone = work.write("gone", "abc");
  const std::string replaced = work.write("replaced", "abc");
  write_rank(snap, 0, {record_of(shrank, Action::kTruncate)});
  write_rank(snap, 1, {record_of(gone, Action::kTruncate)});
  write_rank(snap, 2, {record_of(replaced, Action::kTruncate)});
  spit(shrank, "01");
  unlink(gone.c_str());
  unlink(replaced.c_str());
  spit(work.path() + "/other", "abc");
  ASSERT_EQ(rename((work.path() + "/other").c_str(), replaced.c_str()), 0);
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  auto r = rb->apply(0, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(shrank + " shrank"), std::string::npos) << r.status().message();
  r = rb->apply(1, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_NE(r.status().message().find(gone), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("cr_files=copy"), std::string::npos) << r.status().message();
  r = rb->apply(2, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("replaced"), std::string::npos) << r.status().message();
  // cr=app: the same problems are warnings, nothing is refused.
  RollbackOptions lenient;
  lenient.lenient = true;
  r = rb->apply(1, lenient);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find(gone), std::string::npos);
}

TEST(FileRollback, ACopyBringsBackContentsAndDeletedFiles) {
  lz::test::TempDir work, snap;
  const std::string status = work.write("status", "iteration 7\n");
  const std::string gone = work.write("gone", "keep me\n");
  FileRecord s = record_of(status, Action::kCopy);
  s.copy = "lazarus-files/0";
  FileRecord g = record_of(gone, Action::kCopy);
  g.copy = "lazarus-files/1";
  write_rank(snap, 0, {s, g});
  snap.write("rank.0/lazarus-files/0", "iteration 7\n");
  snap.write("rank.0/lazarus-files/1", "keep me\n");
  spit(status, "iteration 9\n");  // rewritten in place, same size
  unlink(gone.c_str());
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  auto r = rb->apply(0, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(slurp(status), "iteration 7\n");
  EXPECT_EQ(slurp(gone), "keep me\n");
  EXPECT_EQ(r->done.size(), 2u);
  // A copy that does not match its record is refused, naming it.
  snap.write("rank.0/lazarus-files/0", "cut");
  r = rb->apply(0, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("lazarus-files/0"), std::string::npos) << r.status().message();
}

TEST(FileRollback, KeepAndReadOnlyFilesAreLeftAndReported) {
  lz::test::TempDir work, snap;
  const std::string journal = work.write("journal", "a\n");
  const std::string input = work.write("input", "x\n");
  write_rank(snap, 0, {record_of(journal, Action::kTruncate), record_of(input, Action::kCheck, false)});
  spit(journal, "a\nb\n");
  spit(input, "x\ny\n");
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  RollbackOptions keep;
  keep.keep_all = true;
  auto r = rb->apply(0, keep);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(slurp(journal), "a\nb\n");
  EXPECT_EQ(slurp(input), "x\ny\n");
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_NE(r->warnings[0].find(journal), std::string::npos);
  EXPECT_NE(r->warnings[0].find("cr_files=keep"), std::string::npos);
  EXPECT_NE(r->warnings[1].find(input + ", read by rank 0, changed"), std::string::npos) << r->warnings[1];
}

TEST(FileRollback, RanksSharingAFileAgreeOnTheLargestRecordedSize) {
  lz::test::TempDir work, snap;
  const std::string shared = work.write("shared", "0123456789");
  FileRecord early = record_of(shared, Action::kTruncate);
  early.size = 6;
  FileRecord late = record_of(shared, Action::kTruncate);
  late.size = 8;
  write_rank(snap, 0, {early});
  write_rank(snap, 1, {late});
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  // Whichever rank's restore comes first, the file ends at 8 bytes.
  auto r1 = rb->apply(1, {});
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  auto r0 = rb->apply(0, {});
  ASSERT_TRUE(r0.ok()) << r0.status().message();
  EXPECT_EQ(slurp(shared), "01234567");
  ASSERT_FALSE(r0->warnings.empty()) << "the first rank holding it reports the disagreement";
  EXPECT_NE(r0->warnings[0].find("ranks 0,1"), std::string::npos) << r0->warnings[0];
}

TEST(FileRollback, AMoveOnlyChecksAndTheWorkingDirectoryMustExist) {
  lz::test::TempDir work, snap;
  const std::string log = work.write("log", "a\n");
  write_rank(snap, 0, {record_of(log, Action::kTruncate)}, work.path());
  write_rank(snap, 1, {}, work.path() + "/no-such-dir");
  spit(log, "a\nb\n");
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  RollbackOptions move;
  move.mode = RollbackMode::kMove;
  auto r = rb->apply(0, move);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(slurp(log), "a\nb\n") << "nothing rolls back in a migration";
  unlink(log.c_str());
  r = rb->apply(0, move);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(log), std::string::npos);
  r = rb->apply(1, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no-such-dir"), std::string::npos) << r.status().message();
}

TEST(FileRollback, ASnapshotWithoutRecordsChangesNothing) {
  lz::test::TempDir snap;
  snap.mkdir("rank.0");
  auto rb = FileRollback::load(snap.path());
  ASSERT_TRUE(rb.ok());
  EXPECT_TRUE(rb->empty());
  auto r = rb->apply(0, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->done.empty());
}

}  // namespace
}  // namespace lz::procfiles
