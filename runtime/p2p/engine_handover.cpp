// Migration of a rank under cr=app (engine.h: absorb_unexpected,
// take_all_unexpected): at the safe point every rank stopped at, the
// messages a moving rank has not received leave with its state, and no
// message may need the memory of a process about to end.
#include <memory>

#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

Status Engine::absorb_unexpected(double timeout_s) {
  // A receive of the engine's own per unexpected RTS, into a buffer the
  // entry takes once the payload is here. The program has not received the
  // message: the message log hears nothing (it will, when a receive matches).
  struct Pull {
    Unexpected* u;
    Request* r;
    std::unique_ptr<char[]> data;
  };
  std::vector<Pull> pulls;
  for (auto& q : queues_) {
    if (!q) continue;
    for (Unexpected* u = q->unexpected_head(); u != nullptr; u = u->next) {
      if (u->type != wire::kRts) continue;
      const int world = u->world_src;
      Peer& p = peers_[static_cast<size_t>(world)];
      if (p.failed)
        return Status(Code::kAborted, "rank " + std::to_string(world) +
                                          " died holding the data of a message to this rank (" +
                                          std::to_string(u->length) + " bytes)");
      Pull pull{u, request_pool().get(), std::make_unique<char[]>(u->length ? u->length : 1)};
      Request* r = pull.r;
      r->kind = Request::Kind::kRecv;
      r->active = true;
      r->peer = u->src;
      r->tag = u->tag;
      r->context = 0;
      r->bytes = u->length;
      r->dest = pull.data.get();
      pulls.push_back(std::move(pull));
      const RndvSource from{u->addr, (u->flags & wire::kFlagGet) != 0, std::string_view(u->data.data(), u->data.size())};
      start_rndv_recv(r, world, u->src, u->tag, u->length, u->sreq, from);
    }
  }
  if (pulls.empty()) return Status::Ok();
  const double until = now_seconds() + timeout_s;
  auto done = [&] {
    for (const Pull& p : pulls)
      if (!p.r->complete) return false;
    return true;
  };
  while (!done()) {
    if (now_seconds() >= until) {
      // The requests stay where the transport will look for them: abandoned
      // to the pool only once complete (never: the migration is given up).
      for (Pull& p : pulls)
        if (!p.r->complete) (void)p.data.release();
      return Timeout("pulling in " + std::to_string(pulls.size()) + " rendezvous message(s) took more than " +
                     std::to_string(static_cast<int>(timeout_s)) + " s");
    }
    progress_wait(10);
  }
  Status failed;
  for (Pull& p : pulls) {
    Unexpected* u = p.u;
    if (p.r->st_error != MPI_SUCCESS && failed.ok())
      failed = Status(Code::kAborted, "rank " + std::to_string(u->world_src) +
                                          " was lost before the data of its message to this rank arrived");
    if (p.r->st_error == MPI_SUCCESS) {
      u->type = wire::kEager;
      u->flags = static_cast<uint8_t>(u->flags & ~wire::kFlagGet);
      u->addr = 0;
      u->sreq = 0;
      u->data.assign(p.data.get(), p.data.get() + u->length);
    }
    p.r->active = false;
    request_pool().put(p.r);
  }
  return failed;
}

Status Engine::add_message_counts(const std::vector<uint64_t>& sent, const std::vector<uint64_t>& received) {
  if (sent.size() != static_cast<size_t>(size_) || received.size() != static_cast<size_t>(size_))
    return InvalidArgument("message counts for " + std::to_string(sent.size()) + " ranks handed to a job of " +
                           std::to_string(size_));
  for (int r = 0; r < size_; ++r) {
    // Added: peers may have sent this process messages already.
    peers_[static_cast<size_t>(r)].messages_sent += sent[static_cast<size_t>(r)];
    peers_[static_cast<size_t>(r)].messages_received += received[static_cast<size_t>(r)];
  }
  return Status::Ok();
}

StatusOr<std::vector<crcp::Replayed>> Engine::take_all_unexpected() {
  if (open_recvs_ != 0)
    return Unavailable(std::to_string(open_recvs_) + " receive(s) are open: their messages are not unexpected");
  for (auto& q : queues_) {
    if (!q) continue;
    for (Unexpected* u = q->unexpected_head(); u != nullptr; u = u->next)
      if (u->type != wire::kEager)
        return Unavailable("a rendezvous message from rank " + std::to_string(u->world_src) +
                           " is still unexpected here (absorb_unexpected() first)");
  }
  std::vector<crcp::Replayed> out;
  for (uint32_t ctx = 0; ctx < queues_.size(); ++ctx) {
    MatchQueue* q = queues_[ctx].get();
    if (q == nullptr) continue;
    while (Unexpected* u = q->unexpected_head()) {
      crcp::Replayed m;
      m.m.world_src = u->world_src;
      m.m.context = ctx;
      m.m.src = u->src;
      m.m.tag = u->tag;
      m.m.stamp = u->stamp;
      m.payload.assign(u->data.data(), u->length);
      out.push_back(std::move(m));
      q->remove_unexpected(u);
      q->recycle(u);
    }
  }
  return out;
}

}  // namespace lz::rt
