// FakeHost: the engine's side of a transport module, for tests. It answers
// rank/size/peer/modex/secret from what the test gave it and hands every
// delivery and failure to the test's callbacks, so a module can be driven
// in one process (a socket played by the test) or in a forked job
// (transport_job.h).
//
//   lz::test::TestModex modex(/*rank=*/0);
//   lz::test::FakeHost host(0, 2, modex, lz::auth::new_secret());
//   host.on_deliver = [&](int src, const void* p, size_t n) { got.push_back(src); };
//   ASSERT_TRUE(module.init(host).ok());
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/modex.h"
#include "lazarus/status.h"

namespace lz::test {

class FakeHost final : public transport::Host {
 public:
  // Every rank on host "localhost", node 1, unless `node_of_rank` places them
  // (one node id per rank: ranks with equal ids share a host).
  FakeHost(int rank, int size, Modex& modex, std::string secret, std::vector<uint64_t> node_of_rank = {});

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // A rank outside [0, size) is the module's bug: reported through on_misuse.
  const transport::PeerInfo& peer(int rank) const override;
  Modex& modex() override { return modex_; }
  const std::string& job_secret() const override { return secret_; }
  void deliver(int src, const void* data, size_t len) override;
  void peer_failed(int rank, const Status& why) override;
  // Placement (transport.h): off unless the test sets placement_head_bytes
  // (before the module's init). Then place() lends a buffer of its own and
  // deliver_placed() hands head + that buffer to on_deliver like any frame,
  // so every check made on frames holds for placed ones too.
  size_t placement_head() const override { return placement_head_bytes; }
  void* place(int src, const void* head, size_t len) override;
  void deliver_placed(int src, const void* head, size_t len) override;

  // Default: deliveries are counted, failures recorded (below).
  std::function<void(int src, const void* data, size_t len)> on_deliver;
  std::function<void(int rank, const Status& why)> on_failed;
  std::function<void(const std::string& what)> on_misuse;

  size_t placement_head_bytes = 0;

  // Kept whatever the callbacks do.
  size_t delivered = 0;
  size_t placed = 0;  // of them, frames that came through place()
  std::vector<std::pair<int, Status>> failures;

 private:
  int rank_, size_;
  Modex& modex_;
  std::string secret_;
  std::vector<transport::PeerInfo> peers_;
  std::map<int, std::string> lent_;  // per source: the frame being placed (head, then the lent bytes)
};

}  // namespace lz::test
