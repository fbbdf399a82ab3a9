// PmixBootstrap: the Bootstrap of a rank started by a PMIx server (Slurm's
// `srun --mpi=pmix`, Open MPI's mpirun, PRRTE): PMIX_NAMESPACE and the
// server's rendezvous are in the environment, and libpmix does the talking.
//
// Built as its own library, liblazarus_pmix.so, linked with libpmix and
// loaded by Bootstrap::from_environment() only when PMIX_NAMESPACE is set
// (lazarus/companion_library.h): a rank that does not use PMIx never maps
// it. Its one entry point is lz_pmix_bootstrap().
//
// What a rank learns: rank (PMIx_Init), size (PMIX_JOB_SIZE), every rank's
// host (PMIX_HOSTNAME; ranks of one host share a node id, numbered in
// the order hosts first appear), and the job secret rank 0 draws, in one
// start-up fence. Modex entries are PMIx entries of global scope, bytes as
// they are; a fence commits and collects them (PMIX_COLLECT_DATA) and
// keeps the engine's transports progressing while it waits (reply_wait).
#pragma once

#include <pmix.h>

#include <memory>
#include <string>

#include "bootstrap/bootstrap.h"

namespace lz::rt {

class PmixBootstrap final : public Bootstrap {
 public:
  static StatusOr<std::unique_ptr<PmixBootstrap>> init();
  ~PmixBootstrap() override;

  const JobInfo& job() const override { return job_; }
  const std::string& secret() const override { return secret_; }
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override { return fence_with(true); }
  StatusOr<std::string> get(int rank, std::string_view key) const override;
  Status barrier() override { return fence_with(false); }
  Status abort(int code, std::string_view reason) override;
  Status finalize() override;
  bool from_process_manager() const override { return true; }
  int control_fd() const override { return -1; }

 private:
  PmixBootstrap() = default;
  // PMIx_Fence_nb over the namespace, collecting the data or not; the
  // wait goes through reply_wait_ on a pipe the completion writes to.
  Status fence_with(bool collect);
  // Key `key` of `rank` (PMIX_RANK_WILDCARD: of the job); the caller
  // releases it with release().
  StatusOr<pmix_value_t*> fetch(pmix_rank_t rank, const char* key) const;
  static void release(pmix_value_t* v);

  pmix_proc_t me_{};
  JobInfo job_;
  std::string secret_;
  bool initialized_ = false;
  bool finalized_ = false;
};

}  // namespace lz::rt
