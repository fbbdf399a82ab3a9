#include "launcher/modex_server.h"

namespace lz::launcher {

ModexServer::ModexServer(int size, bool restored_job) {
  for (Rounds* r : {&fences_, &barriers_}) {
    r->adopt = restored_job;
    r->last_of_rank.assign(static_cast<size_t>(size), 0);
  }
}

StatusOr<bool> ModexServer::Rounds::arrive(int rank, bool restored_rank, uint64_t seq) {
  uint64_t& last = last_of_rank[static_cast<size_t>(rank)];
  // Restored ranks carry the numbers of the job they were saved from: the
  // first round of a restored job starts the count where they agree.
  if (adopt && arrived == 0 && restored_rank && last == 0 && seq > 0) {
    current = seq;
    adopt = false;
  }
  if (restored_rank && last == 0 && seq == current) last = seq - 1;
  if (seq != last + 1 || seq != current)
    return ProtocolError(std::string(what) + " " + std::to_string(seq) + " out of sequence (the job is at " + what +
                         " " + std::to_string(current) + ")");
  last = seq;
  if (++arrived < static_cast<int>(last_of_rank.size())) return false;
  arrived = 0;
  ++current;
  return true;
}

StatusOr<std::optional<std::string>> ModexServer::on_fence(int rank, bool restored_rank, std::string_view payload) {
  oob::FenceMsg m;
  LZ_RETURN_IF_ERROR(oob::decode_fence(payload, &m));
  LZ_ASSIGN_OR_RETURN(bool complete, fences_.arrive(rank, restored_rank, m.seq));
  for (auto& [k, v] : m.entries) entries_.push_back({static_cast<uint32_t>(rank), std::move(k), std::move(v)});
  if (!complete) return std::optional<std::string>();
  std::string done = oob::encode_fence_done({m.seq, std::move(entries_)});
  entries_.clear();
  if (done.size() > oob::kMaxPayload)
    return InvalidArgument("the modex data of fence " + std::to_string(m.seq) + " (" + std::to_string(done.size()) +
                           " bytes) exceeds the OOB frame limit");
  return std::optional<std::string>(std::move(done));
}

StatusOr<std::optional<std::string>> ModexServer::on_barrier(int rank, bool restored_rank, std::string_view payload) {
  oob::SeqMsg m;
  LZ_RETURN_IF_ERROR(oob::decode_seq(payload, &m));
  LZ_ASSIGN_OR_RETURN(bool complete, barriers_.arrive(rank, restored_rank, m.seq));
  if (!complete) return std::optional<std::string>();
  return std::optional<std::string>(oob::encode_seq({m.seq}));
}

}  // namespace lz::launcher
