// SingletonBootstrap: the Bootstrap of a process started without a launcher
// (`./prog` with no LZ_OOB_ADDR): a job of size 1 whose modex is local.
// It cannot spawn (Bootstrap::spawn's default: kUnavailable, saying to
// start the program with `lazarus run`).
#pragma once

#include <map>
#include <string>

#include "bootstrap/bootstrap.h"

namespace lz::rt {

class SingletonBootstrap final : public Bootstrap {
 public:
  SingletonBootstrap();

  const JobInfo& job() const override { return job_; }
  const std::string& secret() const override { return secret_; }
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override;
  StatusOr<std::string> get(int rank, std::string_view key) const override;
  Status barrier() override { return Status::Ok(); }
  Status abort(int code, std::string_view reason) override;
  Status finalize() override { return Status::Ok(); }
  int control_fd() const override { return -1; }

 private:
  JobInfo job_;
  std::string secret_;
  std::map<std::string, std::string, std::less<>> pending_;
  std::map<std::string, std::string, std::less<>> published_;
};

}  // namespace lz::rt
