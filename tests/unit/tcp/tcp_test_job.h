// A tiny multi-process job for transport tests: the parent forks N ranks and
// optional helper processes, serves barriers over socketpairs, and can kill a
// rank on request. Each rank builds the tcp module through the real registry
// (transport=tcp) and gets a TestHost whose modex is a shared directory
// (put writes a file, fence is a barrier through the parent).
//
//   auto r = lz::test::tcp::run_job(2, {}, [](lz::test::tcp::Rank& me) {
//     ... me.module().send(...); me.module().progress(); ...
//     return 0;  // exit status; a failed TCP_CHECK exits 1 with a message
//   });
//   EXPECT_TRUE(r.ok()) << r.report;
//
// LZ_TEST_VERBOSE=1 prints every process's stderr even when the job passes.
#pragma once

#include <sys/uio.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/modex.h"
#include "lazarus/registry.h"
#include "tcp_transport.h"

namespace lz::test::tcp {

// In a forked rank: print and exit 1 (gtest assertions do not cross fork).
#define TCP_CHECK(cond, ...)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "CHECK failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                              \
      std::fprintf(stderr, "\n");                                                     \
      std::fflush(stderr);                                                            \
      std::_Exit(1);                                                                  \
    }                                                                                 \
  } while (0)

class FileModex final : public Modex {
 public:
  FileModex(std::string dir, int rank, int ctl_fd) : dir_(std::move(dir)), rank_(rank), ctl_(ctl_fd) {}
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override;
  StatusOr<std::string> get(int rank, std::string_view key) const override;
  static std::string path(const std::string& dir, int rank, std::string_view key);

 private:
  std::string dir_;
  int rank_;
  int ctl_;
};

class TestHost final : public transport::Host {
 public:
  TestHost(int rank, int size, Modex* modex, std::string secret);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const transport::PeerInfo& peer(int rank) const override { return peers_.at(static_cast<size_t>(rank)); }
  Modex& modex() override { return *modex_; }
  const std::string& job_secret() const override { return secret_; }
  void deliver(int src, const void* data, size_t len) override;
  void peer_failed(int rank, const Status& why) override;

  std::function<void(int, const void*, size_t)> on_deliver;
  std::function<void(int, const Status&)> on_failed;  // default: fail the rank

 private:
  int rank_, size_;
  std::vector<transport::PeerInfo> peers_;
  Modex* modex_;
  std::string secret_;
};

class Rank {
 public:
  int rank = 0, size = 0;
  std::string dir;  // the job's shared directory
  TestHost& host() { return *host_; }
  transport::Module& module() { return *module_; }
  transport::tcp::TcpTransport& tcp() { return *tcp_; }
  // init + fence + connect.
  void start();
  // Barrier with the other live ranks (through the parent).
  void barrier();
  // Asks the parent to SIGKILL `rank` (returns once it is dead).
  void kill_rank(int rank);
  // Sends one frame, progressing while the transport says would-block.
  void send_blocking(int peer, const struct iovec* iov, int iovcnt);
  void send_blocking(int peer, const void* p, size_t n) {
    struct iovec v{const_cast<void*>(p), n};
    send_blocking(peer, &v, 1);
  }
  // Progresses until pred() holds (fails the rank after a generous timeout).
  void progress_until(const std::function<bool()>& pred, const char* what, double timeout_s = 120);
  // barrier + finalize.
  void finish();
  // This rank's stderr so far.
  std::string stderr_text() const;

  // Set up by run_job.
  int ctl_fd = -1;
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<FileModex> modex_;
  std::unique_ptr<TestHost> host_;
  std::unique_ptr<lz::Module> owned_;
  transport::Module* module_ = nullptr;
  transport::tcp::TcpTransport* tcp_ = nullptr;
};

struct JobOptions {
  std::vector<std::pair<std::string, std::string>> mca;  // besides transport=tcp
  double timeout_s = 240;
  std::vector<int> expect_killed;  // ranks the job kills on purpose
};

struct JobResult {
  bool ok_ = false;
  std::string report;  // exit statuses and every process's stderr, on failure
  bool ok() const { return ok_; }
};

using RankFn = std::function<int(Rank&)>;
using HelperFn = std::function<int(const std::string& dir)>;

JobResult run_job(int n, const JobOptions& opt, const RankFn& fn, const std::vector<HelperFn>& helpers = {});

// The job secret all ranks of a run_job share (helpers may use it to play a
// legitimate peer).
const std::string& test_secret();

}  // namespace lz::test::tcp
