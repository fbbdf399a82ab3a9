#include "bootstrap/singleton_bootstrap.h"

#include <unistd.h>

#include <climits>

#include "lazarus/auth.h"
#include "lazarus/log.h"

namespace lz::rt {

SingletonBootstrap::SingletonBootstrap() {
  job_.job_id = "singleton." + std::to_string(getpid());
  job_.hostname = host_name_from("LZ_HOSTNAME");
  job_.node_of_rank = {0};
  job_.hostname_of_rank = {job_.hostname};
  // Transports of a singleton still authenticate (to themselves): give it a
  // secret of its own.
  secret_ = auth::new_secret();
}

Status SingletonBootstrap::put(std::string_view key, std::string_view value) {
  pending_.insert_or_assign(std::string(key), std::string(value));
  return Status::Ok();
}

Status SingletonBootstrap::fence() {
  for (auto& [k, v] : pending_) published_.insert_or_assign(k, std::move(v));
  pending_.clear();
  return Status::Ok();
}

StatusOr<std::string> SingletonBootstrap::get(int rank, std::string_view key) const {
  if (rank != 0) return InvalidArgument("modex get: rank " + std::to_string(rank) + " outside a job of size 1");
  auto it = published_.find(key);
  if (it == published_.end()) return NotFound("modex: rank 0 published no '" + std::string(key) + "'");
  return it->second;
}

Status SingletonBootstrap::abort(int code, std::string_view reason) {
  log::error("rank 0 aborted the job with code %d: %.*s", code, static_cast<int>(reason.size()), reason.data());
  return Status::Ok();
}

}  // namespace lz::rt
