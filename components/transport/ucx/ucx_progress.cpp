// UcxTransport, receiving and the progress turn: the active-message handler
// (checks, in-order delivery, rendezvous fetches), progress() and arm_wait()
// (contract in ucx_transport.h).
#include <time.h>

#include <cstring>
#include <utility>

#include "lazarus/cpu_relax.h"
#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

// A rendezvous frame being fetched into its HeldFrame.
struct UcxTransport::RecvOp {
  UcxPeer* peer;
  uint64_t seq;
};

namespace {

int64_t now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

ucs_status_t UcxTransport::on_am(const void* header, size_t header_length, void* data, size_t length,
                                 const ucp_am_recv_param_t* param) {
  FrameHeader h;
  if (__builtin_expect(header_length == sizeof h, 1)) {
    // The common frame, first: the next data frame from an active peer we
    // have an endpoint to, nothing held back from it, sent eagerly: what
    // on_other_am() would decide for it, in fewer checks and without its
    // register saves.
    std::memcpy(&h, header, sizeof h);
    UcxPeer* p = h.kind == kData && h.tag == tag_ && h.src != static_cast<uint32_t>(rank_)
                     ? peer_at(static_cast<int>(h.src))
                     : nullptr;
    if (p != nullptr && h.seq == p->expect_seq && p->state == UcxPeer::State::kActive && p->ep != nullptr &&
        p->held.empty() && !stashing_ && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0) {
      ++p->expect_seq;
      ++events_;
      host_->deliver(p->rank, data, length);
      if (!p->held.empty()) deliver_held(*p);
      return UCS_OK;
    }
  }
  return on_other_am(header, header_length, data, length, param);
}

ucs_status_t UcxTransport::on_other_am(const void* header, size_t header_length, void* data, size_t length,
                                       const ucp_am_recv_param_t* param) {
  FrameHeader h;
  if (header_length < sizeof h || header_length > sizeof h + kMaxHead) {
    if (dropped_++ == 0) log::warn("ucx: rank %d refused a frame with a %zu-byte header (not from this job)", rank_, header_length);
    return UCS_OK;  // a rendezvous frame is declined: the sender completes
  }
  std::memcpy(&h, header, sizeof h);
  const size_t head_len = header_length - sizeof h;  // kDataHead's only
  if ((head_len != 0) != (h.kind == kDataHead)) {
    if (dropped_++ == 0)
      log::warn("ucx: rank %d refused a frame of kind %u with a %zu-byte header (not from this job)", rank_, h.kind,
                header_length);
    return UCS_OK;
  }
  UcxPeer* pp = h.tag == tag_ && h.src != static_cast<uint32_t>(rank_) ? peer_at(static_cast<int>(h.src)) : nullptr;
  if (pp == nullptr) {
    if (dropped_++ == 0)
      log::warn("ucx: rank %d refused a frame claiming rank %u with a wrong job tag or rank (not from this job)",
                rank_, h.src);
    return UCS_OK;
  }
  UcxPeer& p = *pp;
  if (p.state == UcxPeer::State::kFailed) return UCS_OK;  // declared lost: nothing more from it
  switch (h.kind) {
    case kBye:
      p.state = UcxPeer::State::kFinalized;
      if (h.seq != kSaidHello) p.hello_due = false;  // it made no bulk endpoint to us
      return UCS_OK;
    case kCheckpoint:
      // Its worker goes away next: its endpoint's error and its exit (a
      // restart) are expected; connect() reads its new address.
      if (p.state == UcxPeer::State::kActive) p.state = UcxPeer::State::kSuspended;
      if (h.seq != kSaidHello) p.hello_due = false;
      return UCS_OK;
    case kGetReq:
      if (p.state == UcxPeer::State::kActive && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0)
        serve_pull(p, h.seq, data, length,
                   (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0 ? param->reply_ep : nullptr);
      return UCS_OK;
    case kGetReply:
    case kGetFail:
      return take_pull_reply(p, h.seq, h.kind == kGetFail, data, length,
                             (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0);
    case kBulkHello:
      take_hello(p, (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0 ? param->reply_ep : nullptr);
      return UCS_OK;
    case kBulkAck:
      p.bulk_acked = true;
      ++events_;
      return UCS_OK;
    case kData:
      break;
    case kDataHead:
      if (!p.hello_sent && config_.pull_zcopy) p.hello_wanted = eps_dirty_ = true;
      break;
    default:
      if (dropped_++ == 0) log::warn("ucx: rank %d refused a frame of unknown kind %u from rank %d", rank_, h.kind, p.rank);
      return UCS_OK;
  }
  if (p.state == UcxPeer::State::kFinalized) return UCS_OK;
  if (p.ep == nullptr && p.state == UcxPeer::State::kActive && !p.need_ep) p.need_ep = eps_dirty_ = true;
  if (h.seq < p.expect_seq || p.held.count(h.seq) != 0) {
    log::warn("ucx: rank %d dropped frame #%llu from rank %d: already received (expecting #%llu)", rank_,
              static_cast<unsigned long long>(h.seq), p.rank, static_cast<unsigned long long>(p.expect_seq));
    return UCS_OK;
  }
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  if (head_len != 0)
    return take_head_frame(p, h.seq, static_cast<const char*>(header) + sizeof h, head_len, data, length, rndv);
  if (!rndv) {
    if (h.seq == p.expect_seq && !stashing_) {
      ++p.expect_seq;
      ++events_;
      host_->deliver(p.rank, data, length);
      if (!p.held.empty()) deliver_held(p);
    } else {
      HeldFrame& f = p.held[h.seq];
      f.data.assign(static_cast<const char*>(data), length);
      f.ready = true;
      held_ready_ = true;
    }
    return UCS_OK;
  }
  HeldFrame& f = p.held[h.seq];
  f.data.resize(length);
  return fetch(p, h.seq, data, f.data.data(), length);
}

ucs_status_t UcxTransport::fetch(UcxPeer& p, uint64_t seq, void* desc, void* dst, size_t length) {
  auto* op = new RecvOp{&p, seq};
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = &UcxTransport::recv_done;
  rp.user_data = op;
  void* req = ucp_am_recv_data_nbx(worker_.worker(), desc, dst, length, &rp);
  if (UCS_PTR_IS_ERR(req)) {
    delete op;
    p.held.erase(seq);
    mark_lost(p, IoError("ucx: fetching a " + std::to_string(length) + "-byte frame from rank " +
                         std::to_string(p.rank) + ": " + ucs_status_string(UCS_PTR_STATUS(req))));
    return UCS_OK;
  }
  if (req == nullptr) {
    delete op;
    p.held[seq].ready = true;
    held_ready_ = true;
    deliver_held(p);
  } else {
    ++outstanding_ops_;
  }
  return UCS_INPROGRESS;
}

void UcxTransport::recv_done(void* request, ucs_status_t status, size_t length, void* user_data) {
  (void)length;
  auto* op = static_cast<RecvOp*>(user_data);
  UcxPeer& p = *op->peer;
  UcxTransport& t = *p.owner;
  --t.outstanding_ops_;
  ucp_request_free(request);
  auto it = p.held.find(op->seq);
  if (it != p.held.end()) {
    if (status == UCS_OK) {
      it->second.ready = true;
      t.held_ready_ = true;
      t.deliver_held(p);
    } else {
      p.held.erase(it);
      t.mark_lost(p, IoError("ucx: fetching frame #" + std::to_string(op->seq) + " from rank " +
                             std::to_string(p.rank) + ": " + ucs_status_string(status)));
    }
  }
  delete op;
}

void UcxTransport::deliver_held(UcxPeer& p) {
  // Frames a lost peer sent before it was reported are delivered; none after.
  while (!stashing_ && !p.held.empty() && p.state != UcxPeer::State::kFailed) {
    auto it = p.held.begin();
    if (it->first != p.expect_seq) return;
    if (it->second.desc != nullptr) {  // a head frame's turn: fetch it (deliver_held runs again when it is in)
      (void)fetch_head_frame(p, it->first, it->second, std::exchange(it->second.desc, nullptr), it->second.rest);
      return;
    }
    if (!it->second.ready) return;
    HeldFrame f = std::move(it->second);
    p.held.erase(it);
    ++p.expect_seq;
    ++events_;
    if (f.placed == 0) host_->deliver(p.rank, f.data.data(), f.data.size());
    else if (!f.dropped) host_->deliver_placed(p.rank, f.data.data(), f.placed);
  }
}

void UcxTransport::progress_worker(bool until_events, int idle_polls) {
  // A bounded number of rounds: a peer that keeps sending must not keep us
  // here forever.
  const int before = events_;
  for (int i = 0; i < 64; ++i) {
    if (ucp_worker_progress(worker_.worker()) == 0) {
      if (--idle_polls < 0) break;
      // Idle looks back to back pull the FIFO element the sender is filling
      // into this cache more often, and each time the sender takes it back:
      // a pause between them. Ping-pongs over posix, 6 rounds interleaved,
      // bound: 512 B 0.205 -> 0.168 us, 4 KiB 0.390 -> 0.382, 0-64 B alike;
      // unbound: 512 B 0.201 -> 0.168, 0 B 0.140 -> 0.135 (see the commit).
      cpu_relax();
    } else if (until_events && events_ != before) {
      break;
    }
  }
}

void UcxTransport::tend_eps() {
  eps_dirty_ = false;
  for (auto& pp : peers_) {
    if (!pp) continue;
    UcxPeer& p = *pp;
    if (p.close_wanted) {
      p.close_wanted = false;
      close_ep(p, true, "close_wanted");
    }
    if (p.hello_wanted) {
      p.hello_wanted = false;
      if (p.state == UcxPeer::State::kActive && !p.lost && !p.hello_sent) send_hello(p);
    }
    if (p.need_ep) {
      p.need_ep = false;
      if (p.state == UcxPeer::State::kActive && !p.lost && p.ep == nullptr)
        if (Status s = ensure_ep(p); !s.ok()) log::debug("%s", s.to_string().c_str());
    }
  }
}

int UcxTransport::progress_turn(int idle_polls) {
  // Nested (from Host::deliver) or between the checkpoint hooks: nothing to do.
  if (in_progress_ || !worker_.is_open()) return 0;
  in_progress_ = true;
  events_ = 0;
  if (held_ready_ && !stashing_) {
    held_ready_ = false;
    for (auto& p : peers_)
      if (p) deliver_held(*p);
  }
  // Until a turn finds nothing (bounded), or one turn found something for
  // the engine: arm_wait() may put the rank to sleep next, and UCX keeps
  // work that no fd announces (tcp: messages already read from the
  // socket), but the engine sleeps only after a progress() that found no
  // event, which drained the worker. One turn per call was tried: 2x slower
  // wake-ups in waits that sleep (8-byte ping-pong with p2p_spin_time 0, and
  // with one rank under valgrind). Draining after an event instead put one
  // empty turn (over tcp a recv() that fails) between a frame's arrival and
  // the engine's answer: 0-byte ping-pongs 4.5-4.9 us over tcp against
  // 4.15-4.3 us, and 0.158 us against 0.153 over posix.
  // A blocking wait's idle looks (progress_waiting()) go to the worker alone:
  // the checks below are for rare states that a look seldom changes.
  progress_worker(true, idle_polls);
  if (eps_dirty_) {
    // A sender that has exited since gets no endpoint (UCX would log its
    // failure to attach a FIFO that is gone): look at the pidfds first.
    if (any_local_) check_waitset();
    tend_eps();
  }
  if (flush_wanted_) start_flushes();
  if (!closing_.empty()) {
    for (size_t i = 0; i < closing_.size();) {
      if (ucp_request_check_status(closing_[i]) == UCS_INPROGRESS) {
        ++i;
        continue;
      }
      ucp_request_free(closing_[i]);
      closing_[i] = closing_.back();
      closing_.pop_back();
    }
  }
  if (any_local_ && (++tick_ & 63) == 0) {
    const int64_t now = now_ms();
    if (now - last_check_ms_ >= config_.liveness_ms) {
      last_check_ms_ = now;
      check_waitset();
    }
  }
  if (any_lost_) {
    progress_worker();  // what a lost peer sent before is delivered first
    report_lost();
  }
  in_progress_ = false;
  return events_;
}

bool UcxTransport::arm_wait() {
  if (!worker_.is_open()) return true;  // between the hooks: nothing can arrive
  if ((held_ready_ && !stashing_) || any_lost_ || eps_dirty_ || flush_wanted_) return false;
  // A send or fetch in flight may need our progress to move on (the next
  // fragments of a frame once the peer's shared-memory FIFO has room, a
  // rendezvous reply), and UCX's shared memory raises no event when room is
  // made: sleeping now would wait for the engine's poll timeout. Measured
  // with 1 MiB ping-pongs over posix+cma: 620 us per message sleeping, see
  // the commit.
  if (outstanding_ops_ != 0) return false;
  if (any_local_) {
    check_waitset();
    if (any_lost_) return false;
  }
  const ucs_status_t st = ucp_worker_arm(worker_.worker());
  if (st == UCS_ERR_BUSY) return false;
  if (st != UCS_OK) {
    log::debug("ucx: ucp_worker_arm: %s", ucs_status_string(st));
    return false;
  }
  return true;
}

}  // namespace lz::transport::ucx
