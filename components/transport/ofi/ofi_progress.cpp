// OfiTransport, progress: one turn reads the completion queue. Receive
// completions are checked and delivered in each pair's sequence order, then
// their buffers are posted again; send completions release their bounce
// buffers; errors fail the peer a send was for. Liveness is checked and
// failures are reported at the end of the turn.
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <sys/timerfd.h>

#include <cstring>

#include "lazarus/log.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {
constexpr size_t kBatch = 16;
// Completions read per progress turn: bounds the time one turn can take.
constexpr int kMaxPerTurn = 256;
// Sequence numbers wrap; a frame is "ahead" when less than half the space ahead.
bool seq_ahead(uint32_t seq, uint32_t expected) { return static_cast<int32_t>(seq - expected) > 0; }
}  // namespace

Status OfiTransport::post_receives() {
  const size_t want = std::min(config_.rx_buffers, std::max<size_t>(2, fabric_.rx_size()));
  while (recv_ops_.size() < want) {
    auto op = std::make_unique<OfiOp>(OfiOp::kRecv);
    op->buffer.resize(sizeof(FrameHeader) + max_frame_);
    recv_ops_.push_back(std::move(op));
  }
  for (auto& op : recv_ops_) {
    if (op->posted) continue;
    if (op->buffer.size() < sizeof(FrameHeader) + max_frame_) op->buffer.resize(sizeof(FrameHeader) + max_frame_);
    const ssize_t rc = fi_recv(fabric_.ep(), op->buffer.data(), op->buffer.size(), nullptr, FI_ADDR_UNSPEC, op.get());
    if (rc == -FI_EAGAIN) {
      to_repost_.push_back(op.get());
      continue;
    }
    if (rc != 0) return Unavailable("ofi: fi_recv: " + fi_error_text(static_cast<int>(rc)));
    op->posted = true;
  }
  return Status::Ok();
}

void OfiTransport::repost(OfiOp* op) {
  op->posted = false;
  if (!fabric_.is_open()) return;
  const ssize_t rc = fi_recv(fabric_.ep(), op->buffer.data(), op->buffer.size(), nullptr, FI_ADDR_UNSPEC, op);
  if (rc == 0) {
    op->posted = true;
    return;
  }
  if (rc != -FI_EAGAIN) log::warn("ofi: fi_recv: %s; buffer kept aside", fi_error_text(static_cast<int>(rc)).c_str());
  to_repost_.push_back(op);
}

// Frames are delivered (or, inside on_checkpoint, kept) in sequence order.
void OfiTransport::dispatch(OfiPeer& p, const char* payload, size_t len) {
  if (stashing_) {
    stash_.emplace_back(p.rank, std::string(payload, len));
    return;
  }
  host_->deliver(p.rank, payload, len);
}

// Checks one received message; returns the frames delivered.
int OfiTransport::on_frame(const char* data, size_t len) {
  FrameHeader h;
  if (len == 0) return 0;  // a peer's wire-up probe (ofi_wireup.cpp)
  if (len < sizeof h) {
    ++dropped_;
    log::warn("ofi: dropped a %zu-byte message: shorter than the frame header (not from a rank of this job)", len);
    return 0;
  }
  std::memcpy(&h, data, sizeof h);
  OfiPeer* p = peer(static_cast<int>(h.src));
  if (p == nullptr || h.tag != p->tag_in || h.len != len - sizeof h ||
      (h.kind != static_cast<uint32_t>(FrameKind::kData) && h.kind != static_cast<uint32_t>(FrameKind::kBye))) {
    ++dropped_;
    log::warn("ofi: dropped a %zu-byte message claiming rank %u: not a frame of a rank of this job (bad tag, rank, "
              "kind or length)",
              len, h.src);
    return 0;
  }
  p->connected = true;
  if (h.seq != p->next_in) {
    if (!seq_ahead(h.seq, p->next_in) || p->early.count(h.seq)) {
      ++dropped_;
      log::warn("ofi: dropped frame #%u from rank %d again (expected #%u)", h.seq, p->rank, p->next_in);
      return 0;
    }
    // Completed before a predecessor: kept until the gap is filled.
    p->early.emplace(h.seq, std::string(data, len));
    return 0;
  }
  int n = 0;
  auto one = [&](const FrameHeader& fh, const char* frame) {
    ++p->next_in;
    if (fh.kind == static_cast<uint32_t>(FrameKind::kBye)) {
      p->finalized = true;
      log::debug("ofi: rank %d finalized", p->rank);
      return;
    }
    ++n;
    dispatch(*p, frame + sizeof(FrameHeader), fh.len);
  };
  one(h, data);
  while (!p->early.empty() && p->early.begin()->first == p->next_in) {
    std::string f = std::move(p->early.begin()->second);
    p->early.erase(p->early.begin());
    FrameHeader fh;
    std::memcpy(&fh, f.data(), sizeof fh);
    one(fh, f.data());
  }
  return n;
}

int OfiTransport::deliver_stash() {
  int n = 0;
  while (!stash_.empty()) {
    auto [src, data] = std::move(stash_.front());
    stash_.pop_front();
    ++n;
    host_->deliver(src, data.data(), data.size());
  }
  return n;
}

// Reads completions; returns the frames delivered plus sends completed.
int OfiTransport::read_cq() {
  if (!fabric_.is_open()) return 0;
  if (!to_repost_.empty()) {
    std::vector<OfiOp*> again;
    again.swap(to_repost_);
    for (OfiOp* op : again) repost(op);
  }
  int events = 0;
  fi_cq_msg_entry entries[kBatch];
  for (int done = 0; done < kMaxPerTurn;) {
    const ssize_t n = fi_cq_read(fabric_.cq(), entries, kBatch);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      if (fi_cq_readerr(fabric_.cq(), &err, 0) != 1) break;
      ++done;
      auto* op = static_cast<OfiOp*>(err.op_context);
      char pe[256] = "";
      const char* perr = fi_cq_strerror(fabric_.cq(), err.prov_errno, err.err_data, pe, sizeof pe);
      const std::string why = fi_error_text(-err.err) + (perr && *perr ? std::string(": ") + perr : std::string());
      if (op == nullptr) {
        log::warn("ofi: completion error without a context: %s", why.c_str());
      } else if (op->kind == OfiOp::kSend) {
        ++events;
        complete_send(op, false, why);
      } else if (op->kind == OfiOp::kRead) {
        ++events;
        complete_read(op, false, why);
      } else {
        // A message larger than a receive buffer (FI_ETRUNC) is no frame of
        // ours; a cancelled receive (closing) is nothing.
        if (err.err != FI_ECANCELED) {
          ++dropped_;
          log::warn("ofi: receive failed (%s): message dropped", why.c_str());
        }
        repost(op);
      }
      continue;
    }
    if (n < 0) {
      log::warn("ofi: fi_cq_read: %s", fi_error_text(static_cast<int>(n)).c_str());
      break;
    }
    done += static_cast<int>(n);
    for (ssize_t i = 0; i < n; ++i) {
      auto* op = static_cast<OfiOp*>(entries[i].op_context);
      if (op == nullptr) continue;
      if (op->kind == OfiOp::kSend) {
        ++events;
        complete_send(op, true, "");
        continue;
      }
      if (op->kind == OfiOp::kRead) {
        ++events;
        complete_read(op, true, "");
        continue;
      }
      op->posted = false;
      events += on_frame(op->buffer.data(), entries[i].len);  // marks its sender connected
      repost(op);
    }
    if (static_cast<size_t>(n) < kBatch) break;
  }
  return events;
}

int OfiTransport::progress() {
  if (host_ == nullptr || in_progress_ || checkpointed_) return 0;
  in_progress_ = true;
  int n = stash_.empty() ? 0 : deliver_stash();
  n += flush_backlogs();
  const int cq = read_cq();
  n += cq;
  check_liveness(cq);
  report_failures();
  in_progress_ = false;
  return n;
}

bool OfiTransport::arm_wait() {
  if (!stash_.empty() || !to_report_.empty() || !to_repost_.empty()) return false;
  armed_ = true;  // the next progress() looks at the pidfds at once
  if (!fabric_wait_ || !fabric_.is_open()) return true;
  fid* f = &fabric_.cq()->fid;
  if (fi_trywait(fabric_.fabric(), &f, 1) != FI_SUCCESS) return false;
  // Come back soon while a handshake may be under way, while frames wait in
  // a backlog for room in the provider, or while a peer that exited waits
  // for its grace before it is reported (its pidfd has fired and left the
  // wait set).
  bool tick = false;
  for (const auto& p : peers_)
    tick |= p.rank != rank_ && !p.failed && !p.finalized &&
            ((p.addr != FI_ADDR_NOTAVAIL && !p.connected) || p.exit_seen_ms != 0 || !p.backlog.empty());
  if (tick) {
    struct itimerspec t {};
    t.it_value.tv_nsec = kConnectTickMs * 1000000L;
    ::timerfd_settime(tick_.get(), 0, &t, nullptr);
  }
  return true;
}

}  // namespace lz::transport::ofi
