// OfiTransport, sending side: one frame per libfabric message, copied before
// send() returns, bounded per peer and over all peers.
//
// A frame is copied once, header first, into a buffer of ours; it is then
// posted (fi_inject, after which the buffer is free at once, or fi_send,
// which keeps it until the completion) or, when the provider has no room
// now (-FI_EAGAIN, or max_outstanding posted), kept in the peer's backlog,
// which progress() posts in order. The backlog is what lets a first frame on
// an idle pair be accepted although the provider still has a handshake to
// make (shm answers -FI_EAGAIN until the peer has mapped our region, which
// needs the peer's progress). kWouldBlock only when the backlog is full
// (kBacklogFrames) or send_limit bytes to that peer are pending.
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <cstring>

#include "lazarus/frameworks/transport_iov.h"
#include "lazarus/log.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {
// Bounce buffers kept for reuse; beyond it a completed buffer is freed.
constexpr size_t kCachedBuffers = 64;
// Frames one peer's backlog holds before send() answers kWouldBlock.
constexpr size_t kBacklogFrames = 64;
}  // namespace

std::vector<char> OfiTransport::take_buffer() {
  if (free_buffers_.empty()) return {};
  std::vector<char> b = std::move(free_buffers_.back());
  free_buffers_.pop_back();
  return b;
}

void OfiTransport::recycle(std::vector<char> buf) {
  if (free_buffers_.size() < kCachedBuffers) free_buffers_.push_back(std::move(buf));
}

Status OfiTransport::send(int rank, const struct iovec* iov, int iovcnt) {
  OfiPeer* p = peer(rank);
  if (p == nullptr || (p->addr == FI_ADDR_NOTAVAIL && !checkpointed_))
    return InvalidArgument("ofi cannot reach rank " + std::to_string(rank));
  if (checkpointed_) return Status(Code::kWouldBlock, "ofi: checkpointed; no frame moves before connect()");
  const size_t total = iov_bytes(iov, iovcnt);
  if (total > max_frame_)
    return InvalidArgument("frame of " + std::to_string(total) + " bytes exceeds ofi max_frame " +
                           std::to_string(max_frame_));
  if (p->failed)
    return Status(Code::kAborted, "ofi: rank " + std::to_string(rank) + " failed: " + p->failure.message());
  if (p->finalized) return Status(Code::kAborted, "rank " + std::to_string(rank) + " has finalized");
  return post_frame(*p, FrameKind::kData, iov, iovcnt, total);
}

Status OfiTransport::post_frame(OfiPeer& p, FrameKind kind, const struct iovec* iov, int iovcnt, size_t payload) {
  const size_t bytes = sizeof(FrameHeader) + payload;
  const bool idle = p.backlog.empty();
  if (!idle && (p.backlog.size() >= kBacklogFrames || p.pending_bytes() + bytes > config_.send_limit))
    return Status(Code::kWouldBlock, "ofi: " + std::to_string(p.backlog.size()) + " frames to rank " +
                                         std::to_string(p.rank) + " wait for the provider");
  if (idle && p.outstanding_frames > 0 && p.pending_bytes() + bytes > config_.send_limit)
    return Status(Code::kWouldBlock, "ofi: send_limit reached for rank " + std::to_string(p.rank));
  FrameHeader h{p.tag_out, static_cast<uint32_t>(rank_), p.next_out, static_cast<uint32_t>(kind),
                static_cast<uint32_t>(payload)};
  std::vector<char> frame = take_buffer();
  frame.resize(bytes);
  std::memcpy(frame.data(), &h, sizeof h);
  iov_gather(iov, iovcnt, frame.data() + sizeof h);
  ++p.next_out;
  if (idle) {
    Status s = try_post(p, frame);
    if (s.code() != Code::kWouldBlock) return s.ok() ? s : Status(Code::kAborted, s.message());
  }
  p.backlog_bytes += bytes;
  p.backlog.push_back(std::move(frame));
  return Status::Ok();
}

// Posts one whole frame: Ok (posted; `frame` consumed), kWouldBlock (no room
// now; `frame` untouched), or the failure (the peer is failed).
Status OfiTransport::try_post(OfiPeer& p, std::vector<char>& frame) {
  const size_t bytes = frame.size();
  if (use_inject_ && bytes <= fabric_.inject_size()) {
    const ssize_t rc = fi_inject(fabric_.ep(), frame.data(), bytes, p.addr);
    if (rc == -FI_EAGAIN) return Status(Code::kWouldBlock, "ofi: provider queue full");
    if (rc != 0) {
      Status why = IoError("ofi: fi_inject to rank " + std::to_string(p.rank) + ": " +
                           fi_error_text(static_cast<int>(rc)));
      fail_peer(p, why);
      return why;
    }
    recycle(std::move(frame));
    return Status::Ok();
  }
  if (outstanding_ >= outstanding_cap_)
    return Status(Code::kWouldBlock, "ofi: " + std::to_string(outstanding_) + " sends outstanding");
  auto op = std::make_unique<OfiOp>(OfiOp::kSend);
  op->peer = p.rank;
  op->bytes = bytes;
  op->buffer = std::move(frame);
  OfiOp* raw = op.get();
  const ssize_t rc = fi_send(fabric_.ep(), raw->buffer.data(), bytes, nullptr, p.addr, raw);
  if (rc == -FI_EAGAIN) {
    frame = std::move(raw->buffer);
    return Status(Code::kWouldBlock, "ofi: provider queue full");
  }
  if (rc != 0) {
    Status why =
        IoError("ofi: fi_send to rank " + std::to_string(p.rank) + ": " + fi_error_text(static_cast<int>(rc)));
    fail_peer(p, why);
    return why;
  }
  sends_.emplace(raw, std::move(op));
  ++outstanding_;
  ++p.outstanding_frames;
  p.outstanding_bytes += bytes;
  return Status::Ok();
}

// Posts what waits in the backlogs, in order per peer; returns frames posted.
int OfiTransport::flush_backlogs() {
  int n = 0;
  for (auto& p : peers_) {
    while (!p.backlog.empty() && !p.failed && fabric_.is_open()) {
      std::vector<char>& front = p.backlog.front();
      const size_t bytes = front.size();
      Status s = try_post(p, front);
      if (s.code() == Code::kWouldBlock) break;
      p.backlog_bytes -= std::min(p.backlog_bytes, bytes);
      p.backlog.pop_front();
      ++n;
    }
    if (p.failed && !p.backlog.empty()) {  // lost with the peer
      p.backlog.clear();
      p.backlog_bytes = 0;
    }
  }
  return n;
}

void OfiTransport::complete_send(OfiOp* op, bool ok, const std::string& why) {
  auto it = sends_.find(op);
  if (it == sends_.end()) return;  // not ours (cannot happen): ignore
  std::unique_ptr<OfiOp> owned = std::move(it->second);
  sends_.erase(it);
  if (outstanding_ > 0) --outstanding_;
  if (OfiPeer* p = peer(owned->peer)) {
    p->outstanding_bytes -= std::min(p->outstanding_bytes, owned->bytes);
    if (p->outstanding_frames > 0) --p->outstanding_frames;
    if (ok) p->connected = true;
    if (!ok && !p->failed && !p->finalized)
      fail_peer(*p, IoError("ofi: a frame to rank " + std::to_string(p->rank) + " was not delivered: " + why));
  }
  recycle(std::move(owned->buffer));
}

}  // namespace lz::transport::ofi
