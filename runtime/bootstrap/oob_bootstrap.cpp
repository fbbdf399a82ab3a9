#include "bootstrap/oob_bootstrap.h"

#include <chrono>

#include <poll.h>

#include "lazarus/log.h"
#include "oob/messages.h"
#include "oob/spawn_messages.h"

namespace lz::rt {

using oob::Frame;
using oob::MsgType;

StatusOr<std::unique_ptr<OobBootstrap>> OobBootstrap::connect(JobInfo job, std::string secret, std::string address,
                                                              double connect_timeout, bool join) {
  std::unique_ptr<OobBootstrap> b(new OobBootstrap(std::move(job), std::move(secret), std::move(address),
                                                   connect_timeout));
  LZ_RETURN_IF_ERROR(b->open(join ? oob::kAuthReconnect : 0));
  const oob::WelcomeMsg& w = b->client_->welcome();
  if (join) {
    b->fence_seq_ = w.fences_done;
    b->barrier_seq_ = w.barriers_done;
  }
  if (w.size != static_cast<uint32_t>(b->job_.size))
    return ProtocolError("launcher says the job has " + std::to_string(w.size) + " ranks, LZ_SIZE says " +
                         std::to_string(b->job_.size));
  b->job_.node_of_rank = w.node_of_rank;
  b->job_.hostname_of_rank = w.hostname_of_rank;
  b->store_.resize(static_cast<size_t>(b->job_.size));
  return b;
}

Status OobBootstrap::open(uint32_t flags) {
  LZ_ASSIGN_OR_RETURN(client_, oob::OobClient::connect(address_, job_.job_id, static_cast<uint32_t>(job_.rank),
                                                       secret_, flags, oob::deadline_in(timeout_)));
  return Status::Ok();
}

Status OobBootstrap::require_connected(const char* what) const {
  if (finalized_) return Status(Code::kAborted, std::string(what) + " after finalize");
  if (!client_) return Unavailable(std::string(what) + ": the OOB channel is disconnected");
  return Status::Ok();
}

Status OobBootstrap::lost(const Status& why) {
  client_.reset();
  finalized_ = true;  // no way back: the launcher stops a job whose rank went silent
  if (why.code() == Code::kAborted) return why.with_context("OOB channel to the launcher lost");
  return why.with_context("OOB channel");
}

StatusOr<Frame> OobBootstrap::await(MsgType want) {
  for (;;) {
    if (reply_wait_) reply_wait_(client_->fd());
    auto f = client_->receive(oob::kNoDeadline);
    if (!f.ok()) return lost(f.status());
    if (f->type == static_cast<uint16_t>(want)) return std::move(*f);
    LZ_RETURN_IF_ERROR(not_the_answer(*f, want));
  }
}

Status OobBootstrap::not_the_answer(Frame& f, MsgType want) {
  if (f.type == static_cast<uint16_t>(MsgType::kError)) {
    oob::ErrorMsg e;
    Status s = oob::decode_error(f.payload, &e);
    return lost(s.ok() ? Status(Code::kAborted, "the launcher ended the job: " + e.reason) : s);
  }
  if (f.type >= static_cast<uint16_t>(MsgType::kCheckpointRequest) &&
      f.type <= static_cast<uint16_t>(MsgType::kCrReservedLast)) {
    control_.push_back({f.type, std::move(f.payload)});
    queued_.store(control_.size(), std::memory_order_relaxed);
    return Status::Ok();
  }
  return lost(ProtocolError("expected " + oob::msg_type_name(static_cast<uint16_t>(want)) + " from the launcher, got " +
                            oob::msg_type_name(f.type)));
}

Status OobBootstrap::put(std::string_view key, std::string_view value) {
  if (finalized_) return Status(Code::kAborted, "modex put after finalize");
  if (key.empty() || key.size() > oob::kMaxKeyBytes)
    return InvalidArgument("modex key must be 1 to " + std::to_string(oob::kMaxKeyBytes) + " bytes");
  pending_.emplace_back(std::string(key), std::string(value));
  return Status::Ok();
}

Status OobBootstrap::fence() {
  LZ_RETURN_IF_ERROR(require_connected("modex fence"));
  oob::FenceMsg m{++fence_seq_, std::move(pending_)};
  pending_.clear();
  if (Status s = client_->send(MsgType::kFence, oob::encode_fence(m)); !s.ok()) return lost(s);
  LZ_ASSIGN_OR_RETURN(Frame f, await(MsgType::kFenceDone));
  oob::FenceDoneMsg done;
  if (Status s = oob::decode_fence_done(f.payload, static_cast<uint32_t>(job_.size), &done); !s.ok()) return lost(s);
  if (done.seq != fence_seq_)
    return lost(ProtocolError("FENCE_DONE for fence " + std::to_string(done.seq) + ", expected " +
                              std::to_string(fence_seq_)));
  for (auto& e : done.entries) store_[e.rank].insert_or_assign(std::move(e.key), std::move(e.value));
  return Status::Ok();
}

StatusOr<std::string> OobBootstrap::get(int rank, std::string_view key) const {
  if (rank < 0 || rank >= job_.size)
    return InvalidArgument("modex get: rank " + std::to_string(rank) + " outside a job of size " +
                           std::to_string(job_.size));
  const auto& m = store_[static_cast<size_t>(rank)];
  auto it = m.find(key);
  if (it == m.end()) return NotFound("modex: rank " + std::to_string(rank) + " published no '" + std::string(key) + "'");
  return it->second;
}

Status OobBootstrap::barrier() {
  LZ_RETURN_IF_ERROR(require_connected("barrier"));
  if (Status s = client_->send(MsgType::kBarrier, oob::encode_seq({++barrier_seq_})); !s.ok()) return lost(s);
  LZ_ASSIGN_OR_RETURN(Frame f, await(MsgType::kBarrierDone));
  oob::SeqMsg done;
  if (Status s = oob::decode_seq(f.payload, &done); !s.ok()) return lost(s);
  if (done.seq != barrier_seq_) return lost(ProtocolError("BARRIER_DONE out of sequence"));
  return Status::Ok();
}

Status OobBootstrap::spawn(const oob::SpawnRequestMsg& req) {
  LZ_RETURN_IF_ERROR(require_connected("spawn"));
  oob::SpawnRequestMsg m = req;
  m.seq = ++spawn_seq_;
  if (Status s = client_->send(MsgType::kSpawnRequest, oob::encode_spawn_request(m)); !s.ok()) return lost(s);
  LZ_ASSIGN_OR_RETURN(Frame f, await(MsgType::kSpawnReply));
  oob::SpawnReplyMsg rep;
  if (Status s = oob::decode_spawn_reply(f.payload, &rep); !s.ok()) return lost(s);
  if (rep.seq != spawn_seq_)
    return lost(ProtocolError("SPAWN_REPLY for request " + std::to_string(rep.seq) + ", expected " +
                              std::to_string(spawn_seq_)));
  if (rep.ok != 1) return InvalidArgument(rep.message.empty() ? "the launcher refused to spawn" : rep.message);
  return Status::Ok();
}

StatusOr<std::vector<oob::BridgeTableMsg>> OobBootstrap::bridge_fence(const std::vector<oob::BridgeFenceMsg>& fences,
                                                                      double timeout_s) {
  LZ_RETURN_IF_ERROR(require_connected("bridge fence"));
  std::vector<oob::BridgeTableMsg> tables(fences.size());
  std::vector<bool> answered(fences.size(), false);
  size_t left = fences.size();
  for (const auto& m : fences)
    if (Status s = client_->send(MsgType::kBridgeFence, oob::encode_bridge_fence(m)); !s.ok()) return lost(s);
  const oob::Deadline until = oob::deadline_in(timeout_s);
  while (left > 0) {
    auto f = client_->receive(until);
    if (!f.ok()) {
      if (f.status().code() != Code::kTimeout) return lost(f.status());
      std::string keys;
      for (size_t i = 0; i < fences.size(); ++i)
        if (!answered[i]) keys += (keys.empty() ? "" : ", ") + fences[i].key;
      return lost(Timeout("no BRIDGE_TABLE from the launcher within " + std::to_string(timeout_s) +
                          " s for bridge key(s) " + keys));
    }
    if (f->type != static_cast<uint16_t>(MsgType::kBridgeTable)) {
      LZ_RETURN_IF_ERROR(not_the_answer(*f, MsgType::kBridgeTable));
      continue;
    }
    oob::BridgeTableMsg t;
    if (Status s = oob::decode_bridge_table(f->payload, &t); !s.ok()) return lost(s);
    size_t i = 0;
    while (i < fences.size() && (answered[i] || fences[i].key != t.key)) ++i;
    if (i == fences.size()) {
      log::debug("bridge fence: dropping a BRIDGE_TABLE for key %s, which no bridge here waits for", t.key.c_str());
      continue;
    }
    if (t.error.empty() && t.entries.size() != fences[i].members)
      return lost(ProtocolError("BRIDGE_TABLE for key " + t.key + " has " + std::to_string(t.entries.size()) +
                                " entries for a bridge of " + std::to_string(fences[i].members) + " processes"));
    tables[i] = std::move(t);
    answered[i] = true;
    --left;
  }
  return tables;
}

Status OobBootstrap::abort(int code, std::string_view reason) {
  if (!client_) {
    // No launcher to tell (disconnected or finalized): say it here; the
    // caller exits with the code and the launcher reports the exit.
    log::error("aborting with code %d: %.*s", code, static_cast<int>(reason.size()), reason.data());
    return Status::Ok();
  }
  oob::AbortMsg m{code, std::string(reason.substr(0, oob::kMaxReasonBytes))};
  LZ_RETURN_IF_ERROR(client_->send(MsgType::kAbort, oob::encode_abort(m)));
  // Stay alive until the launcher has read the ABORT (it answers every rank
  // with ERROR, or closes): if this process exited at once, a peer could see
  // it die and report that first, and the job would end with the peer's
  // code instead of ours. Bounded: a launcher that never answers costs 2 s.
  const oob::Deadline until = oob::Clock::now() + std::chrono::seconds(2);
  while (true) {
    auto f = client_->receive(until);
    if (!f.ok() || f->type == static_cast<uint16_t>(MsgType::kError)) break;
  }
  return Status::Ok();
}

Status OobBootstrap::finalize() {
  if (finalized_) return Status::Ok();
  LZ_RETURN_IF_ERROR(require_connected("finalize"));
  if (Status s = client_->send(MsgType::kFinalize, ""); !s.ok()) return lost(s);
  // Waiting for the acknowledgement closes the race between our exit (the
  // launcher's SIGCHLD) and the FINALIZE still in its socket buffer.
  LZ_ASSIGN_OR_RETURN(Frame f, await(MsgType::kFinalizeAck));
  (void)f;
  client_.reset();
  finalized_ = true;
  return Status::Ok();
}

StatusOr<std::optional<ControlMessage>> OobBootstrap::next_control() {
  if (!control_.empty()) {
    ControlMessage m = std::move(control_.front());
    control_.pop_front();
    queued_.store(control_.size(), std::memory_order_relaxed);
    return std::optional<ControlMessage>(std::move(m));
  }
  if (!client_) return std::optional<ControlMessage>();
  pollfd p{client_->fd(), POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return std::optional<ControlMessage>();
  auto f = client_->receive(oob::deadline_in(timeout_));
  if (!f.ok()) return lost(f.status());
  if (f->type == static_cast<uint16_t>(MsgType::kError)) {
    oob::ErrorMsg e;
    Status s = oob::decode_error(f->payload, &e);
    return lost(s.ok() ? Status(Code::kAborted, "the launcher ended the job: " + e.reason) : s);
  }
  if (f->type < static_cast<uint16_t>(MsgType::kCheckpointRequest) ||
      f->type > static_cast<uint16_t>(MsgType::kCrReservedLast))
    return lost(ProtocolError("unexpected " + oob::msg_type_name(f->type) + " from the launcher"));
  return std::optional<ControlMessage>(ControlMessage{f->type, std::move(f->payload)});
}

Status OobBootstrap::disconnect() {
  LZ_RETURN_IF_ERROR(require_connected("disconnect"));
  if (Status s = client_->send(MsgType::kDisconnect, ""); !s.ok()) return lost(s);
  LZ_ASSIGN_OR_RETURN(Frame f, await(MsgType::kDisconnectAck));
  (void)f;
  client_.reset();
  return Status::Ok();
}

Status OobBootstrap::send_control(uint16_t type, std::string_view payload) {
  LZ_RETURN_IF_ERROR(require_connected("control message"));
  if (Status s = client_->send(static_cast<MsgType>(type), payload); !s.ok()) return lost(s);
  return Status::Ok();
}

Status OobBootstrap::reconnect() {
  if (finalized_) return Status(Code::kAborted, "reconnect after finalize");
  if (client_) return Status::Ok();
  LZ_RETURN_IF_ERROR(open(oob::kAuthReconnect));
  const oob::WelcomeMsg& w = client_->welcome();
  if (w.size != static_cast<uint32_t>(job_.size)) {
    const uint32_t got = w.size;
    client_.reset();
    return ProtocolError("reconnected launcher runs a job of " + std::to_string(got) + " ranks, expected " +
                         std::to_string(job_.size));
  }
  job_.node_of_rank = w.node_of_rank;
  job_.hostname_of_rank = w.hostname_of_rank;
  return Status::Ok();
}

Status OobBootstrap::reconnect_to(const std::string& address, const std::string& job_id, const std::string& secret) {
  if (finalized_) return Status(Code::kAborted, "reconnect after finalize");
  if (address.empty() || job_id.empty() || secret.empty())
    return InvalidArgument("reconnect to a new launcher needs its address, job id and secret");
  client_.reset();  // a socket restored from an image is never valid (there is none: disconnect() closed it)
  // Restored into the job it was saved from (a migration: `lazarus migrate`
  // restores the moving ranks and the others go on): the same launcher keeps
  // counting fences and barriers, so this rank's numbers stand. A new job
  // (lazarus restart) starts the count afresh.
  const bool same_job = job_id == job_.job_id;
  address_ = address;
  job_.job_id = job_id;
  secret_ = secret;
  if (!same_job) {
    fence_seq_ = 0;
    barrier_seq_ = 0;
  }
  control_.clear();
  queued_.store(0, std::memory_order_relaxed);
  return reconnect();
}

}  // namespace lz::rt
