// The engine's side of a transport, for tests: a modex kept in files of the
// job's shared directory (put writes <dir>/modex/<rank>/<key>, fence is the
// parent's barrier) and a Host that hands deliveries and failures to the test.
//
// ShmRank builds the shm module the way the runtime does: through the
// registry, selecting the transport framework with `transport=shm`.
//
//   ShmRank r(env, {{"transport_shm_ring_size", "16k"}});
//   ASSERT_TRUE(r.start().ok());           // init, fence, connect, fence
//   r.host.on_deliver = [&](int src, const void* p, size_t n) { ... };
//   r.send_blocking(1, data, len);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/registry.h"
#include "shm_test_job.h"

namespace lz::test::shm {

class FileModex final : public Modex {
 public:
  explicit FileModex(const RankEnv& env) : env_(env) {}
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override { return env_.barrier(); }
  StatusOr<std::string> get(int rank, std::string_view key) const override;

 private:
  const RankEnv& env_;
};

class TestHost final : public transport::Host {
 public:
  TestHost(const RankEnv& env, std::vector<uint64_t> node_of_rank);

  int rank() const override { return env_.rank; }
  int size() const override { return env_.size; }
  const transport::PeerInfo& peer(int rank) const override { return peers_[static_cast<size_t>(rank)]; }
  Modex& modex() override { return modex_; }
  const std::string& job_secret() const override { return secret_; }
  void deliver(int src, const void* data, size_t len) override;
  void peer_failed(int rank, const Status& why) override { failures.emplace_back(rank, why); }

  std::function<void(int, const void*, size_t)> on_deliver;
  std::vector<std::pair<int, Status>> failures;
  size_t delivered = 0;

 private:
  const RankEnv& env_;
  FileModex modex_;
  std::vector<transport::PeerInfo> peers_;
  std::string secret_ = "test-secret";
};

class ShmRank {
 public:
  // `mca` adds parameter settings; `node_of_rank` (default: all on node 1)
  // places ranks on emulated hosts.
  explicit ShmRank(RankEnv& env, std::vector<std::pair<std::string, std::string>> mca = {},
                   std::vector<uint64_t> node_of_rank = {});

  // Selects the module (error if shm is not usable), then init, fence,
  // connect and a second fence (so every peer has mapped our segment).
  Status start();
  // Sends; while the ring is full, progresses and sleeps in poll() on
  // wait_fd() (no timeout: a lost wake-up hangs). Returns the final status.
  Status send_blocking(int peer, const void* data, size_t len);
  Status send_blocking(int peer, const struct iovec* iov, int iovcnt);
  // Progresses until pred() holds; sleeps in poll() on wait_fd() (no
  // timeout) whenever arm_wait() allows. Returns the number of sleeps.
  int wait_until(const std::function<bool()>& pred);

  RankEnv& env;
  Registry reg;
  TestHost host;
  std::unique_ptr<Module> owned;
  transport::Module* t = nullptr;
  std::vector<std::pair<std::string, std::string>> mca;
};

}  // namespace lz::test::shm
