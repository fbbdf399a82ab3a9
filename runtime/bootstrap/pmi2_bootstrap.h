// Pmi2Bootstrap: the Bootstrap of a rank started by a process manager that
// speaks PMI-2 (`srun --mpi=pmi2 ./prog`, MPICH's Hydra): PMI_FD is a
// connected socket to it, PMI_RANK/PMI_SIZE/PMI_JOBID say who this rank is
// (bootstrap/pmi2_wire.h has the protocol).
//
// What a rank learns: rank and size (fullinit), the node of every rank
// (the job attribute PMI_process_mapping), every rank's host name and the
// job secret (rank 0 draws it; one KVS fence at start-up, where MPICH's
// PMI-2 client needs none, since transports here authenticate their peers).
// Modex entries are KVS entries keyed "<rank>/<key>" (the KVS is one space
// for the whole job), values hex-encoded in chunks the server accepts.
//
// There is no launcher behind it: no control messages, so no
// checkpoint/restart (`lazarus checkpoint` finds jobs through lazarus
// run's launcher), no MPI_Comm_spawn, no reconnect.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.h"

namespace lz::rt {

class Pmi2Bootstrap final : public Bootstrap {
 public:
  // Takes over the socket `fd` (PMI_FD): the version handshake, fullinit,
  // the mapping and the start-up fence. kUnavailable naming PMI_FD when the
  // process manager does not answer as PMI-2.
  static StatusOr<std::unique_ptr<Pmi2Bootstrap>> connect(int fd, int rank, const std::string& pmi_jobid);
  ~Pmi2Bootstrap() override;

  const JobInfo& job() const override { return job_; }
  const std::string& secret() const override { return secret_; }
  Status put(std::string_view key, std::string_view value) override;
  Status fence() override;
  StatusOr<std::string> get(int rank, std::string_view key) const override;
  Status barrier() override { return fence(); }
  Status abort(int code, std::string_view reason) override;
  Status finalize() override;
  bool from_process_manager() const override { return true; }
  int control_fd() const override { return -1; }

 private:
  explicit Pmi2Bootstrap(int fd) : fd_(fd) {}
  // One command and its answer; the answer's "rc" must be 0.
  StatusOr<std::map<std::string, std::string>> call(std::string_view name,
                                                    const std::vector<std::pair<std::string, std::string>>& pairs,
                                                    bool wait = false) const;
  Status send_all(const std::string& bytes) const;
  Status recv_all(char* at, size_t len, bool wait) const;
  // The KVS key of `rank`'s entry `key`, chunk `chunk` (0: the first).
  static std::string kvs_key(int rank, std::string_view key, int chunk);

  int fd_ = -1;
  JobInfo job_;
  std::string secret_;
  std::string pmi_jobid_;
  bool finalized_ = false;
  mutable std::map<std::pair<int, std::string>, std::string, std::less<>> cache_;
};

}  // namespace lz::rt
