// OobBootstrap: the Bootstrap of a rank started by `lazarus run`, talking to
// its launcher over the OOB channel (oob/oob_client.h, message types in
// oob/frame.h).
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "oob/oob_client.h"

namespace lz::rt {

class OobBootstrap final : public Bootstrap {
 public:
  // Connects and authenticates; fills job.node_of_rank/hostname_of_rank from
  // the launcher's WELCOME. `join`: this new process takes the place of a
  // rank that left the running job (cr=app migration): it attaches as that
  // rank reconnecting, and numbers its fences and barriers from the job's.
  static StatusOr<std::unique_ptr<OobBootstrap>> connect(JobInfo job, std::string secret, std::string address,
                                                         double connect_timeout, bool join = false);

  const JobInfo& job() const override { return job_; }
  const std::string& secret() const override { return secret_; }
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override;
  StatusOr<std::string> get(int rank, std::string_view key) const override;
  Status barrier() override;
  Status abort(int code, std::string_view reason) override;
  Status finalize() override;
  int control_fd() const override { return client_ ? client_->fd() : -1; }
  StatusOr<std::optional<ControlMessage>> next_control() override;
  Status disconnect() override;
  size_t queued_control() const override { return queued_.load(std::memory_order_relaxed); }
  Status send_control(uint16_t type, std::string_view payload) override;
  Status reconnect() override;
  Status reconnect_to(const std::string& address, const std::string& job_id, const std::string& secret) override;
  bool connected() const override { return client_ != nullptr; }
  Status spawn(const oob::SpawnRequestMsg& req) override;
  StatusOr<std::vector<oob::BridgeTableMsg>> bridge_fence(const std::vector<oob::BridgeFenceMsg>& fences,
                                                          double timeout_s) override;

 private:
  OobBootstrap(JobInfo job, std::string secret, std::string address, double timeout)
      : job_(std::move(job)), secret_(std::move(secret)), address_(std::move(address)), timeout_(timeout) {}
  Status open(uint32_t flags);
  Status require_connected(const char* what) const;
  // Receives frames until one of type `want` arrives; control messages met
  // on the way are queued, ERROR ends the wait with kAborted.
  StatusOr<oob::Frame> await(oob::MsgType want);
  // A frame await() meets that is not its answer: a control message is
  // queued (Ok), ERROR ends the wait (kAborted), anything else breaks the
  // protocol (the channel is lost). `want` names the awaited frame.
  Status not_the_answer(oob::Frame& f, oob::MsgType want);
  // Fails the channel for good after a transport or protocol error.
  Status lost(const Status& why);

  JobInfo job_;
  std::string secret_;
  std::string address_;
  double timeout_;
  std::unique_ptr<oob::OobClient> client_;
  bool finalized_ = false;
  uint64_t fence_seq_ = 0;
  uint64_t barrier_seq_ = 0;
  uint64_t spawn_seq_ = 0;
  oob::KeyValues pending_;
  std::vector<std::map<std::string, std::string, std::less<>>> store_;  // per rank
  std::deque<ControlMessage> control_;
  std::atomic<size_t> queued_{0};  // control_.size(), readable from the CR thread
};

}  // namespace lz::rt
