#include "p2p/engine.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "lazarus/datatype/datatype.h"
#include "lazarus/log.h"
#include "p2p/bsend_buffer.h"
#include "p2p/comm.h"

namespace lz::rt {
namespace {

constexpr uint32_t kMaxContext = 1u << 24;

inline bool contiguous(const dt::Datatype* dt) { return dt == nullptr || dt->is_contiguous(); }
inline uint64_t packed_bytes(const dt::Datatype* dt, int count) {
  return dt ? static_cast<uint64_t>(dt->size()) * static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
}
inline ptrdiff_t first_byte(const dt::Datatype* dt) { return dt ? dt->true_lb() : 0; }

inline Request* as_request(uint64_t id) {
  Request* r = reinterpret_cast<Request*>(static_cast<uintptr_t>(id));
  return (r != nullptr && r->valid()) ? r : nullptr;
}

inline wire::Header make_header(uint8_t type, uint32_t ctx, int src, int tag, uint64_t len) {
  wire::Header h;
  h.version = wire::kVersion;
  h.type = type;
  h.flags = 0;
  h.reserved = 0;
  h.context = ctx;
  h.src = src;
  h.tag = tag;
  h.length = len;
  h.sreq = 0;
  h.rreq = 0;
  h.addr = 0;
  return h;
}

}  // namespace

Engine::Engine() = default;

Engine::~Engine() = default;

Status Engine::init(Bootstrap& boot, Registry& reg) {
  boot_ = &boot;
  const JobInfo& job = boot.job();
  rank_ = job.rank;
  size_ = job.size;
  peer_info_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    auto& pi = peer_info_[static_cast<size_t>(r)];
    pi.rank = r;
    if (static_cast<size_t>(r) < job.hostname_of_rank.size()) pi.host = job.hostname_of_rank[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.node_of_rank.size()) pi.node_id = job.node_of_rank[static_cast<size_t>(r)];
  }
  peers_.resize(static_cast<size_t>(size_));
  const ParamStore& ps = reg.params();
  eager_limit_param_ = static_cast<uint64_t>(std::max<int64_t>(0, ps.get_int("p2p_eager_limit")));
  spin_count_ = static_cast<int>(std::max<int64_t>(0, ps.get_int("p2p_spin_count")));
  wait_timeout_ms_ = static_cast<int>(std::clamp<int64_t>(ps.get_int("p2p_wait_timeout_ms"), 1, 1000));
  flush_timeout_s_ = ps.get_double("p2p_flush_timeout");
  if (!(flush_timeout_s_ >= 0))
    return InvalidArgument("p2p_flush_timeout = " + std::to_string(flush_timeout_s_) +
                           " must be 0 (no limit) or a number of seconds");
  {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
    if (ncpu <= 0) ncpu = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    oversubscribed_ = ncpu > 0 && job.local_size > ncpu;
  }

  Framework* fw = reg.framework("transport");
  if (fw == nullptr) return Internal("no transport framework");
  QueryContext ctx = reg.query_context();
  ctx.rank = rank_;
  ctx.size = size_;
  auto selected = fw->select(ctx);
  if (!selected.ok()) return selected.status().with_context("transport selection");
  std::vector<std::string> names;
  for (auto& q : *selected) {
    if (!q.module) continue;
    names.push_back(q.entry->desc->name);
    owned_.push_back(std::move(q.module));
    modules_.push_back(static_cast<transport::Module*>(owned_.back().get()));
  }
  if (modules_.empty()) return Unavailable("no transport is usable (check the 'transport' parameter)");
  for (size_t i = 0; i < modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(modules_[i]->init(*this).with_context("transport " + names[i] + ": init"));
  LZ_RETURN_IF_ERROR(boot.fence().with_context("modex fence"));
  for (size_t i = 0; i < modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(modules_[i]->connect().with_context("transport " + names[i] + ": connect"));

  module_names_ = names;
  cr_released_.assign(modules_.size(), false);
  LZ_RETURN_IF_ERROR(choose_transports());
  live_ = true;
  boot.set_reply_wait([this](int fd) { wait_readable(fd); });
  return Status::Ok();
}

void Engine::refresh_peer_info() {
  const JobInfo& job = boot_->job();
  for (int r = 0; r < size_; ++r) {
    auto& pi = peer_info_[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.hostname_of_rank.size()) pi.host = job.hostname_of_rank[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.node_of_rank.size()) pi.node_id = job.node_of_rank[static_cast<size_t>(r)];
  }
}

Status Engine::choose_transports() {
  active_.clear();
  idle_.clear();
  any_without_fd_ = false;
  std::string all_names;
  for (auto& n : module_names_) all_names += (all_names.empty() ? "" : ",") + n;
  for (int r = 0; r < size_; ++r) {
    Peer& p = peers_[static_cast<size_t>(r)];
    p.transport = nullptr;
    for (auto* m : modules_) {
      if (m->reaches(r)) {
        p.transport = m;
        break;
      }
    }
    if (p.transport == nullptr)
      return Unavailable("no selected transport (" + all_names + ") reaches rank " + std::to_string(r) + " on host " +
                         peer_info_[static_cast<size_t>(r)].host + "; enable one that does (e.g. --mca transport tcp,self)");
    size_t mf = p.transport->max_frame();
    p.max_payload = mf > sizeof(wire::Header) ? mf - sizeof(wire::Header) : 0;
    if (p.max_payload == 0) return Internal("transport max_frame too small for the p2p header");
    p.eager_limit = static_cast<size_t>(std::min<uint64_t>(eager_limit_param_, p.max_payload));
    // A rank reads its own memory with memcpy: single copy for rendezvous to itself.
    p.has_get = (r == rank_) || (p.transport->capabilities() & transport::kCapGet) != 0;
    if (std::find(active_.begin(), active_.end(), p.transport) == active_.end()) active_.push_back(p.transport);
  }
  // Modules no peer of ours uses still get progressed now and then: a peer
  // may reach us through one of them.
  for (auto* m : modules_)
    if (std::find(active_.begin(), active_.end(), m) == active_.end()) idle_.push_back(m);
  for (auto* m : active_) {
    uint64_t caps = m->capabilities();
    if (!(caps & transport::kCapSelf) && m->wait_fd() < 0) any_without_fd_ = true;
  }
  for (int r = 0; r < size_; ++r)
    log::debug("p2p: rank %d reached through transport with caps %s, eager limit %zu", r,
               transport::capability_names(peers_[static_cast<size_t>(r)].transport->capabilities()).c_str(),
               peers_[static_cast<size_t>(r)].eager_limit);
  return Status::Ok();
}

std::string Engine::unsent_summary(std::vector<int>* owed) const {
  std::string out;
  for (int r = 0; r < size_; ++r) {
    const Peer& p = peers_[static_cast<size_t>(r)];
    if (p.failed) continue;  // its frames are gone; peer_failed said so
    const size_t in_transport = p.transport != nullptr ? p.transport->unsent_bytes(r) : 0;
    if (p.pending.empty() && in_transport == 0) continue;
    out += (out.empty() ? "rank " : ", rank ") + std::to_string(r) + " (";
    if (!p.pending.empty()) out += std::to_string(p.pending.size()) + " frame(s) waiting for transport room";
    if (!p.pending.empty() && in_transport != 0) out += ", ";
    if (in_transport != 0) out += std::to_string(in_transport) + " bytes queued in the transport";
    out += ")";
    owed->push_back(r);
  }
  return out;
}

Status Engine::flush_sends() {
  const double timeout_s = flush_timeout_s_;
  std::vector<int> owed;
  std::string waiting = unsent_summary(&owed);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double next_note = 30;
  while (!waiting.empty()) {
    progress_wait(wait_timeout_ms_);
    std::string lost;
    for (int r : owed)
      if (peers_[static_cast<size_t>(r)].failed) lost += (lost.empty() ? "" : ", ") + std::to_string(r);
    if (!lost.empty())
      return DataLoss("frames sent before MPI_Finalize to rank(s) " + lost + " were lost: the rank failed first");
    owed.clear();
    waiting = unsent_summary(&owed);
    if (waiting.empty()) break;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double waited =
        static_cast<double>(t1.tv_sec - t0.tv_sec) + 1e-9 * static_cast<double>(t1.tv_nsec - t0.tv_nsec);
    if (timeout_s > 0 && waited > timeout_s)
      return Timeout("frames sent before MPI_Finalize did not leave this process within " +
                     std::to_string(static_cast<long>(timeout_s)) + " s (p2p_flush_timeout): " + waiting +
                     "; is that rank alive and calling MPI?");
    if (waited >= next_note) {
      log::warn("MPI_Finalize: still waiting after %ld s for %s to take frames sent to it",
                static_cast<long>(waited), waiting.c_str());
      next_note += 30;
    }
  }
  return Status::Ok();
}

void Engine::wait_readable(int fd) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (!live_ || poll(&p, 1, 0) != 0) return;  // readable, or broken: the read says which
    progress_wait(wait_timeout_ms_, fd);
  }
}

Status Engine::finalize() {
  live_ = false;
  if (boot_ != nullptr) boot_->set_reply_wait(nullptr);
  if (interrupt_fd_ >= 0) {
    close(interrupt_fd_);
    interrupt_fd_ = -1;
  }
  Status first;
  for (auto* m : modules_) {
    Status s = m->finalize();
    if (!s.ok() && first.ok()) first = s;
  }
  active_.clear();
  idle_.clear();
  return first;
}

// ---- sending ------------------------------------------------------------------------

Status Engine::send_frame(int world, const wire::Header& h, const void* payload, size_t len) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (__builtin_expect(p.pending.empty() && !hold_, 1)) {
    struct iovec iov[2];
    iov[0].iov_base = const_cast<wire::Header*>(&h);
    iov[0].iov_len = sizeof h;
    iov[1].iov_base = const_cast<void*>(payload);
    iov[1].iov_len = len;
    Status s = p.transport->send(world, iov, len ? 2 : 1);
    if (__builtin_expect(s.ok(), 1)) {
      ++p.sent.messages;
      p.sent.bytes += sizeof h + len;
      if (world == rank_) self_dirty_ = true;
      return s;
    }
    if (s.code() != Code::kWouldBlock) {
      log::error("p2p: sending to rank %d failed: %s", world, s.message().c_str());
      return s;
    }
  }
  if (p.failed) return Status(Code::kAborted, "rank " + std::to_string(world) + " has failed");
  enqueue(world, h, payload, len);
  return Status::Ok();
}

void Engine::enqueue(int world, const wire::Header& h, const void* payload, size_t len) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.pending.empty()) ++pending_peers_;
  PendingFrame f;
  f.bytes.reserve(sizeof h + len);
  f.bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  if (len) f.bytes.append(static_cast<const char*>(payload), len);
  p.pending.push_back(std::move(f));
}

void Engine::flush_peer(int world) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (hold_ || p.pending.empty()) return;
  while (!p.pending.empty()) {
    PendingFrame& f = p.pending.front();
    if (f.stream != nullptr) {
      Request* r = f.stream;
      while (r->rndv_done < r->bytes) {
        uint64_t n = std::min<uint64_t>(p.max_payload, r->bytes - r->rndv_done);
        wire::Header h = make_header(wire::kFrag, r->context, r->comm ? r->comm->rank() : 0, r->tag, n);
        h.sreq = reinterpret_cast<uintptr_t>(r);
        h.rreq = r->remote_req;
        h.addr = r->rndv_done;
        struct iovec iov[2];
        iov[0].iov_base = &h;
        iov[0].iov_len = sizeof h;
        iov[1].iov_base = const_cast<char*>(r->data + r->rndv_done);
        iov[1].iov_len = n;
        Status s = p.transport->send(world, iov, 2);
        if (s.code() == Code::kWouldBlock) return;
        if (!s.ok()) {
          log::error("p2p: sending to rank %d failed: %s", world, s.message().c_str());
          peer_failed(world, s);
          return;
        }
        ++p.sent.messages;
        p.sent.bytes += sizeof h + n;
        if (world == rank_) self_dirty_ = true;
        r->rndv_done += n;
      }
      p.pending.pop_front();
      remove_waiting(r);
      complete(r);
      continue;
    }
    struct iovec iov[1];
    iov[0].iov_base = f.bytes.data();
    iov[0].iov_len = f.bytes.size();
    Status s = p.transport->send(world, iov, 1);
    if (s.code() == Code::kWouldBlock) return;
    if (!s.ok()) {
      log::error("p2p: sending to rank %d failed: %s", world, s.message().c_str());
      peer_failed(world, s);
      return;
    }
    ++p.sent.messages;
    p.sent.bytes += f.bytes.size();
    if (world == rank_) self_dirty_ = true;
    p.pending.pop_front();
  }
  --pending_peers_;
}

void Engine::flush_all() {
  for (int w = 0; w < size_ && pending_peers_ > 0; ++w)
    if (!peers_[static_cast<size_t>(w)].pending.empty()) flush_peer(w);
}

void Engine::hold_sends(bool hold) {
  hold_ = hold;
  if (!hold) flush_all();
}

void Engine::send_ctl(int world, uint8_t type, uint64_t sreq, uint64_t rreq) {
  wire::Header h = make_header(type, 0, rank_, 0, 0);
  h.sreq = sreq;
  h.rreq = rreq;
  Status s = send_frame(world, h, nullptr, 0);
  if (!s.ok()) peer_failed(world, s);
}

bool Engine::activate(Request* r) {
  r->active = true;
  r->complete = false;
  r->st_error = MPI_SUCCESS;
  r->st_cancelled = false;
  if (r->peer != MPI_PROC_NULL) return false;
  r->st_source = MPI_PROC_NULL;
  r->st_tag = MPI_ANY_TAG;
  r->st_bytes = 0;
  complete(r);
  return true;
}

Status Engine::start_send(Request* r) {
  if (activate(r)) return Status::Ok();
  Comm* c = r->comm;
  const int world = c->world_rank_of(r->peer);
  r->world_peer = world;
  Peer& p = peers_[static_cast<size_t>(world)];
  if (__builtin_expect(p.failed, 0)) {
    fail_request(r, MPI_ERR_PROC_FAILED);
    return Status::Ok();
  }
  const uint64_t bytes = packed_bytes(r->dt, r->count);
  r->bytes = bytes;
  if (contiguous(r->dt)) {
    r->data = static_cast<const char*>(r->buf) + first_byte(r->dt);
  } else {
    r->tmp = static_cast<char*>(std::malloc(bytes ? bytes : 1));
    if (r->tmp == nullptr) return Internal("out of memory packing a message of " + std::to_string(bytes) + " bytes");
    r->dt->pack(r->buf, r->count, r->tmp);
    r->data = r->tmp;
  }
  wire::Header h = make_header(wire::kEager, r->context, c->rank(), r->tag, bytes);
  h.sreq = reinterpret_cast<uintptr_t>(r);
  if (bytes <= p.eager_limit) {
    const bool sync = r->mode == Request::Mode::kSync;
    if (sync) {
      h.flags = wire::kFlagSync;
      add_waiting(world, r);
    }
    Status s = send_frame(world, h, r->data, bytes);
    if (__builtin_expect(!s.ok(), 0)) {
      if (sync) remove_waiting(r);
      fail_request(r, MPI_ERR_OTHER);
      return s;
    }
    if (!sync) complete(r);
    return Status::Ok();
  }

  // Rendezvous. A buffered send copies its data into the attached buffer and
  // completes at once; an internal request carries the transfer.
  Request* xfer = r;
  if (r->mode == Request::Mode::kBuffered) {
    char* copy = bsend_buffer().allocate(bytes);
    if (copy == nullptr) {
      r->free_tmp();
      fail_request(r, MPI_ERR_BUFFER);
      return Status(Code::kInvalidArgument, "MPI_Bsend: the attached buffer has no room for " +
                                                std::to_string(bytes) + " bytes (+MPI_BSEND_OVERHEAD)");
    }
    std::memcpy(copy, r->data, bytes);
    r->free_tmp();
    xfer = request_pool().get();
    xfer->kind = Request::Kind::kSend;
    xfer->comm = c;
    xfer->peer = r->peer;
    xfer->tag = r->tag;
    xfer->context = r->context;
    xfer->world_peer = world;
    xfer->bytes = bytes;
    xfer->tmp = copy;
    xfer->tmp_is_bsend = true;
    xfer->data = copy;
    xfer->active = true;
    xfer->user_freed = true;  // nobody waits on it: released at completion
    h.sreq = reinterpret_cast<uintptr_t>(xfer);
    complete(r);
  }
  h.type = wire::kRts;
  h.addr = reinterpret_cast<uintptr_t>(xfer->data);
  add_waiting(world, xfer);
  Status s = send_frame(world, h, nullptr, 0);
  if (!s.ok()) {
    remove_waiting(xfer);
    fail_request(xfer, MPI_ERR_OTHER);
    return s;
  }
  return Status::Ok();
}

// ---- receiving ------------------------------------------------------------------------

Status Engine::start_recv(Request* r) {
  if (activate(r)) return Status::Ok();
  r->bytes = packed_bytes(r->dt, r->count);
  r->dest = contiguous(r->dt) ? static_cast<char*>(r->buf) + first_byte(r->dt) : nullptr;
  if (r->peer != MPI_ANY_SOURCE) {
    int world = r->comm->world_rank_of(r->peer);
    r->world_peer = world;
  }
  MatchQueue* q = queue(r->context);
  Unexpected* u = q->find_unexpected(r->peer, r->tag, true);
  if (u != nullptr) {
    if (u->type == wire::kEager) {
      recv_eager_into(r, u->src, u->tag, u->data.data(), u->length);
      if (u->flags & wire::kFlagSync) send_ctl(u->world_src, wire::kAck, u->sreq, 0);
    } else {
      start_rndv_recv(r, u->world_src, u->src, u->tag, u->length, u->sreq, u->addr);
    }
    q->recycle(u);
    return Status::Ok();
  }
  if (r->peer != MPI_ANY_SOURCE && peers_[static_cast<size_t>(r->world_peer)].failed) {
    fail_request(r, MPI_ERR_PROC_FAILED);
    return Status::Ok();
  }
  q->post(r);
  return Status::Ok();
}

bool Engine::iprobe(uint32_t ctx, int src, int tag, Request* probe) {
  Unexpected* u = queue(ctx)->find_unexpected(src, tag, false);
  if (u == nullptr) return false;
  probe->st_source = u->src;
  probe->st_tag = u->tag;
  probe->st_error = MPI_SUCCESS;
  probe->st_cancelled = false;
  probe->st_bytes = u->length;
  return true;
}

bool Engine::cancel(Request* r) {
  if (r->kind != Request::Kind::kRecv || r->complete || !r->active) return false;
  MatchQueue* q = queue(r->context);
  if (!q->is_posted(r)) return false;
  q->unpost(r);
  r->st_cancelled = true;
  r->st_bytes = 0;
  complete(r);
  return true;
}

void Engine::recv_eager_into(Request* r, int src, int tag, const char* payload, uint64_t len) {
  r->st_source = src;
  r->st_tag = tag;
  uint64_t n = len;
  if (len > r->bytes) {
    n = r->bytes;
    r->st_error = MPI_ERR_TRUNCATE;
  }
  if (n) {
    if (r->dest != nullptr) std::memcpy(r->dest, payload, n);
    else r->dt->unpack(payload, n, r->count, r->buf);
  }
  r->st_bytes = n;
  complete(r);
}

void Engine::start_rndv_recv(Request* r, int world, int src, int tag, uint64_t length, uint64_t sreq,
                             uint64_t addr) {
  r->st_source = src;
  r->st_tag = tag;
  r->world_peer = world;
  uint64_t n = length;
  if (length > r->bytes) {
    n = r->bytes;
    r->st_error = MPI_ERR_TRUNCATE;
  }
  r->st_bytes = n;
  r->remote_req = sreq;
  r->rndv_total = length;
  r->rndv_done = 0;
  if (r->dest == nullptr) {
    r->tmp = static_cast<char*>(std::malloc(n ? n : 1));
    r->dest = r->tmp;
  }
  Peer& p = peers_[static_cast<size_t>(world)];
  if (world == rank_) {
    if (n) std::memcpy(r->dest, reinterpret_cast<const void*>(static_cast<uintptr_t>(addr)), n);
    send_ctl(world, wire::kFin, sreq, 0);
    finish_recv(r);
    return;
  }
  if (p.has_get) {
    Status s = n ? p.transport->get(world, r->dest, addr, n) : Status::Ok();
    if (s.ok()) {
      send_ctl(world, wire::kFin, sreq, 0);
      finish_recv(r);
      return;
    }
    log::debug("p2p: single-copy get from rank %d failed (%s); streaming instead", world, s.message().c_str());
  }
  add_waiting(world, r);
  send_ctl(world, wire::kCts, sreq, reinterpret_cast<uintptr_t>(r));
}

void Engine::finish_recv(Request* r) {
  if (r->tmp != nullptr && r->dt != nullptr && r->st_bytes) r->dt->unpack(r->tmp, r->st_bytes, r->count, r->buf);
  r->free_tmp();
  r->dest = nullptr;
  complete(r);
}

// ---- incoming frames ----------------------------------------------------------------------

void Engine::deliver(int src, const void* data, size_t len) {
  if (__builtin_expect(len < sizeof(wire::Header) || src < 0 || src >= size_, 0)) {
    log::error("p2p: dropped a %zu-byte frame from rank %d: shorter than the p2p header", len, src);
    return;
  }
  wire::Header h;
  std::memcpy(&h, data, sizeof h);
  Peer& p = peers_[static_cast<size_t>(src)];
  ++p.received.messages;
  p.received.bytes += len;
  if (__builtin_expect(h.version != wire::kVersion, 0)) {
    log::error("p2p: dropped a frame from rank %d with protocol version %u (expected %u)", src, h.version,
               wire::kVersion);
    return;
  }
  const char* payload = static_cast<const char*>(data) + sizeof h;
  const size_t plen = len - sizeof h;
  switch (h.type) {
    case wire::kEager:
      if (h.length != plen || h.context >= kMaxContext) break;
      deliver_eager(src, h, payload);
      return;
    case wire::kRts:
      if (h.context >= kMaxContext) break;
      deliver_rts(src, h);
      return;
    case wire::kCts: {
      Request* r = as_request(h.sreq);
      if (r == nullptr || r->kind != Request::Kind::kSend) break;
      r->remote_req = h.rreq;
      deferred_.push_back({Deferred::kCts, src, 0, 0, 0, 0, 0, 0, r});
      return;
    }
    case wire::kFrag: {
      Request* r = as_request(h.rreq);
      if (r == nullptr || r->kind != Request::Kind::kRecv || h.length != plen) break;
      if (h.addr < r->st_bytes) {
        uint64_t n = std::min<uint64_t>(plen, r->st_bytes - h.addr);
        std::memcpy(r->dest + h.addr, payload, n);
      }
      r->rndv_done += plen;
      if (r->rndv_done >= r->rndv_total) {
        remove_waiting(r);
        finish_recv(r);
      }
      return;
    }
    case wire::kFin:
    case wire::kAck: {
      Request* r = as_request(h.sreq);
      if (r == nullptr || r->kind != Request::Kind::kSend) break;
      remove_waiting(r);
      complete(r);
      return;
    }
    default:
      break;
  }
  log::error("p2p: dropped a malformed frame from rank %d (type %u, %zu bytes)", src, h.type, len);
}

void Engine::deliver_eager(int world, const wire::Header& h, const char* payload) {
  MatchQueue* q = queue(h.context);
  Request* r = q->match_posted(h.src, h.tag);
  if (r != nullptr) {
    recv_eager_into(r, h.src, h.tag, payload, h.length);
    if (h.flags & wire::kFlagSync) deferred_.push_back({Deferred::kCtl, world, wire::kAck, 0, 0, 0, h.sreq, 0, nullptr});
    return;
  }
  Unexpected* u = q->new_unexpected();
  u->src = h.src;
  u->tag = h.tag;
  u->world_src = world;
  u->type = wire::kEager;
  u->flags = h.flags;
  u->length = h.length;
  u->sreq = h.sreq;
  u->addr = 0;
  u->data.assign(payload, payload + h.length);
  q->append(u);
}

void Engine::deliver_rts(int world, const wire::Header& h) {
  MatchQueue* q = queue(h.context);
  Request* r = q->match_posted(h.src, h.tag);
  if (r != nullptr) {
    deferred_.push_back({Deferred::kRndvStart, world, 0, h.src, h.tag, h.length, h.sreq, h.addr, r});
    return;
  }
  Unexpected* u = q->new_unexpected();
  u->src = h.src;
  u->tag = h.tag;
  u->world_src = world;
  u->type = wire::kRts;
  u->flags = h.flags;
  u->length = h.length;
  u->sreq = h.sreq;
  u->addr = h.addr;
  u->data.clear();
  q->append(u);
}

void Engine::run_deferred() {
  // Index loop: nothing below appends, but keep it robust if it ever does.
  for (size_t i = 0; i < deferred_.size(); ++i) {
    Deferred d = deferred_[i];
    switch (d.kind) {
      case Deferred::kCtl:
        send_ctl(d.world, d.type, d.sreq, 0);
        break;
      case Deferred::kRndvStart:
        start_rndv_recv(d.req, d.world, d.src, d.tag, d.length, d.sreq, d.addr);
        break;
      case Deferred::kCts: {
        Peer& p = peers_[static_cast<size_t>(d.world)];
        if (p.failed) break;
        if (p.pending.empty()) ++pending_peers_;
        PendingFrame f;
        f.stream = d.req;
        d.req->rndv_done = 0;
        p.pending.push_back(std::move(f));
        flush_peer(d.world);
        break;
      }
    }
  }
  deferred_.clear();
}

// ---- completion and failure -------------------------------------------------------------

void Engine::complete(Request* r) {
  if (r->kind == Request::Kind::kSend) r->free_tmp();
  r->complete = true;
  if (r->user_freed) {
    r->active = false;
    request_pool().put(r);
  }
}

void Engine::fail_request(Request* r, int mpi_error) {
  r->st_error = mpi_error;
  if (r->kind == Request::Kind::kRecv) {
    r->free_tmp();
    r->dest = nullptr;
  }
  complete(r);
}

void Engine::add_waiting(int world, Request* r) {
  Peer& p = peers_[static_cast<size_t>(world)];
  r->prev = nullptr;
  r->next = p.waiting;
  if (p.waiting) p.waiting->prev = r;
  p.waiting = r;
}

void Engine::remove_waiting(Request* r) {
  if (r->world_peer < 0) return;
  Peer& p = peers_[static_cast<size_t>(r->world_peer)];
  if (r->prev) r->prev->next = r->next;
  else if (p.waiting == r) p.waiting = r->next;
  else return;  // not in the list
  if (r->next) r->next->prev = r->prev;
  r->next = r->prev = nullptr;
}

void Engine::peer_failed(int world, const Status& why) {
  if (world < 0 || world >= size_) return;
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.failed) return;
  p.failed = true;
  log::error("p2p: rank %d is unreachable: %s", world, why.message().c_str());
  if (!p.pending.empty()) {
    for (auto& f : p.pending)
      if (f.stream != nullptr) {
        // The stream's request is also on the waiting list; failed below.
      }
    p.pending.clear();
    --pending_peers_;
  }
  while (p.waiting != nullptr) {
    Request* r = p.waiting;
    remove_waiting(r);
    fail_request(r, MPI_ERR_PROC_FAILED);
  }
  for (auto& q : queues_) {
    if (!q) continue;
    for (Request* r = q->posted_head(); r != nullptr;) {
      Request* next = r->next;
      if (r->peer >= 0 && r->comm != nullptr && r->comm->world_rank_of(r->peer) == world) {
        q->unpost(r);
        fail_request(r, MPI_ERR_PROC_FAILED);
      }
      r = next;
    }
  }
}

// ---- progress and waiting ------------------------------------------------------------------

int Engine::progress() {
  int n = 0;
  self_dirty_ = false;
  for (auto* t : active_) n += t->progress();
  if (__builtin_expect(!idle_.empty(), 0) && (++idle_turn_ & 63) == 0)
    for (auto* t : idle_) n += t->progress();
  if (__builtin_expect(!deferred_.empty(), 0)) run_deferred();
  if (__builtin_expect(pending_peers_ != 0, 0)) flush_all();
  return n;
}

bool Engine::arm_waits() {
  bool can_sleep = true;
  for (auto* t : active_) can_sleep &= t->arm_wait();
  for (auto* t : idle_) can_sleep &= t->arm_wait();
  return can_sleep;
}

nfds_t Engine::wait_fds(pollfd* fds) const {
  nfds_t n = 0;
  for (const auto* list : {&active_, &idle_})
    for (auto* t : *list)
      if (int fd = t->wait_fd(); fd >= 0 && n < kMaxWaitFds - 2) fds[n++] = {fd, POLLIN, 0};
  return n;
}

void Engine::sleep_turn() {
  if (interrupt_requested.load(std::memory_order_acquire)) {
    if (interrupt_fd_ >= 0) {
      uint64_t v;
      ssize_t n = read(interrupt_fd_, &v, sizeof v);  // non-blocking: clears a pending wake-up
      (void)n;
    }
    // A consistent point: not inside a transport's progress(), no deferred
    // work half done. The handler may park this thread while the CR thread
    // progresses the engine and checkpoints.
    if (interrupt_handler_) interrupt_handler_();
    else interrupt_requested.store(false, std::memory_order_relaxed);
  }
  if (progress() > 0 || self_dirty_) return;
  if (!arm_waits() || self_dirty_) {
    progress();
    return;
  }
  pollfd fds[kMaxWaitFds];
  nfds_t nfds = wait_fds(fds);
  auto add = [&](int fd) {
    if (fd >= 0 && nfds < kMaxWaitFds) fds[nfds++] = {fd, POLLIN, 0};
  };
  add(interrupt_fd_);
  // With CR on, the CR thread polls the control fd; polling it here too would
  // turn this wait into a spin while a control message waits to be read.
  const bool control = boot_ != nullptr && !control_dead_ && interrupt_fd_ < 0;
  const nfds_t control_index = nfds;
  if (control) add(boot_->control_fd());
  int timeout = (pending_peers_ != 0 || any_without_fd_) ? 1 : wait_timeout_ms_;
  int rc = poll(fds, nfds, timeout);
  if (rc > 0 && control && control_index < nfds && (fds[control_index].revents & (POLLHUP | POLLERR | POLLNVAL)))
    control_dead_ = true;  // the launcher is gone; do not spin on the dead fd
  progress();
}

// ---- checkpoint support -------------------------------------------------------------------

Status Engine::enable_interrupts() {
  if (interrupt_fd_ >= 0) return Status::Ok();
  interrupt_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (interrupt_fd_ < 0) return ErrnoError("eventfd for the CR interrupt", errno);
  return Status::Ok();
}

void Engine::request_interrupt() {
  interrupt_requested.store(true, std::memory_order_release);
  if (interrupt_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t n = write(interrupt_fd_, &one, sizeof one);
    (void)n;  // EAGAIN: already rung
  }
}

int Engine::progress_wait(int timeout_ms, int extra_fd) {
  int n = progress();
  if (n > 0 || self_dirty_) return n;
  if (!arm_waits() || self_dirty_) return progress();
  pollfd fds[kMaxWaitFds];
  nfds_t nfds = wait_fds(fds);
  if (extra_fd >= 0 && nfds < kMaxWaitFds) fds[nfds++] = {extra_fd, POLLIN, 0};
  int timeout = (pending_peers_ != 0 || any_without_fd_) ? std::min(timeout_ms, 1) : timeout_ms;
  poll(fds, nfds, timeout);
  return progress();
}

std::string Engine::transports_without_checkpoint() const {
  std::string out;
  for (size_t i = 0; i < modules_.size(); ++i)
    if (!(modules_[i]->capabilities() & transport::kCapCheckpoint))
      out += (out.empty() ? "" : ",") + module_names_[i];
  return out;
}

Status Engine::checkpoint_transports(int timeout_ms) {
  live_ = false;  // the bootstrap's waits block until reconnect_transports()
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (cr_released_[i]) continue;
    for (;;) {
      Status s = modules_[i]->on_checkpoint();
      if (s.ok()) {
        cr_released_[i] = true;
        break;
      }
      if (s.code() != Code::kWouldBlock) return s.with_context("transport " + module_names_[i] + ": on_checkpoint");
      struct timespec t1;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
      if (ms > timeout_ms)
        return Timeout("transport " + module_names_[i] + ": on_checkpoint still refused after " + std::to_string(ms) +
                       " ms: " + s.message());
      progress_wait(1);
    }
  }
  return Status::Ok();
}

Status Engine::resume_transports(bool restarted) {
  if (restarted) refresh_peer_info();
  Status first;
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (!cr_released_[i]) continue;
    Status s = restarted ? modules_[i]->on_restart() : modules_[i]->on_continue();
    if (!s.ok() && first.ok())
      first = s.with_context("transport " + module_names_[i] + (restarted ? ": on_restart" : ": on_continue"));
  }
  return first;
}

Status Engine::reconnect_transports() {
  LZ_RETURN_IF_ERROR(boot_->fence().with_context("modex fence after the checkpoint"));
  Status first;
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (!cr_released_[i]) continue;
    cr_released_[i] = false;
    Status s = modules_[i]->connect();
    if (!s.ok() && first.ok()) first = s.with_context("transport " + module_names_[i] + ": connect after the checkpoint");
  }
  control_dead_ = false;
  LZ_RETURN_IF_ERROR(first);
  LZ_RETURN_IF_ERROR(choose_transports());
  live_ = true;
  return Status::Ok();
}

// ---- contexts -------------------------------------------------------------------------------

MatchQueue* Engine::queue(uint32_t ctx) {
  if (__builtin_expect(ctx < queues_.size() && queues_[ctx], 1)) return queues_[ctx].get();
  if (ctx >= queues_.size()) queues_.resize(static_cast<size_t>(ctx) + 16);
  queues_[ctx] = std::make_unique<MatchQueue>();
  return queues_[ctx].get();
}

void Engine::release_queue(uint32_t ctx) {
  if (ctx < queues_.size() && queues_[ctx] && queues_[ctx]->empty()) queues_[ctx].reset();
}

}  // namespace lz::rt
