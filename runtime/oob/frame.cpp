#include "oob/frame.h"

#include <cstdio>

#include "oob/wire.h"

namespace lz::oob {

std::string msg_type_name(uint16_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kAuth: return "AUTH";
    case MsgType::kWelcome: return "WELCOME";
    case MsgType::kError: return "ERROR";
    case MsgType::kFence: return "FENCE";
    case MsgType::kFenceDone: return "FENCE_DONE";
    case MsgType::kBarrier: return "BARRIER";
    case MsgType::kBarrierDone: return "BARRIER_DONE";
    case MsgType::kAbort: return "ABORT";
    case MsgType::kFinalize: return "FINALIZE";
    case MsgType::kFinalizeAck: return "FINALIZE_ACK";
    case MsgType::kDisconnect: return "DISCONNECT";
    case MsgType::kDisconnectAck: return "DISCONNECT_ACK";
    case MsgType::kCheckpointRequest: return "CHECKPOINT_REQUEST";
    case MsgType::kCheckpointReady: return "CHECKPOINT_READY";
    case MsgType::kCheckpointDone: return "CHECKPOINT_DONE";
    case MsgType::kCheckpointFailed: return "CHECKPOINT_FAILED";
    case MsgType::kContinue: return "CONTINUE";
    case MsgType::kRestartInfo: return "RESTART_INFO";
    case MsgType::kCheckpointDrain: return "CHECKPOINT_DRAIN";
    case MsgType::kCheckpointDrained: return "CHECKPOINT_DRAINED";
    case MsgType::kCheckpointGo: return "CHECKPOINT_GO";
    case MsgType::kCheckpointAbort: return "CHECKPOINT_ABORT";
    case MsgType::kCrReady: return "CR_READY";
    case MsgType::kCrFinalizing: return "CR_FINALIZING";
    case MsgType::kAppLine: return "APP_LINE";
    case MsgType::kAppDir: return "APP_DIR";
    case MsgType::kAppExpect: return "APP_EXPECT";
    case MsgType::kAppNegotiate: return "APP_NEGOTIATE";
    case MsgType::kAppPosition: return "APP_POSITION";
    case MsgType::kAppTarget: return "APP_TARGET";
    case MsgType::kHelperStart: return "HELPER_START";
    case MsgType::kHelperStarted: return "HELPER_STARTED";
    case MsgType::kHelperSignal: return "HELPER_SIGNAL";
    case MsgType::kHelperOutput: return "HELPER_OUTPUT";
    case MsgType::kHelperExit: return "HELPER_EXIT";
    case MsgType::kHelperUnknown: return "HELPER_UNKNOWN";
    case MsgType::kHelperRestore:
      return "HELPER_RESTORE";
    case MsgType::kSpawnRequest: return "SPAWN_REQUEST";
    case MsgType::kSpawnReply: return "SPAWN_REPLY";
    case MsgType::kBridgeFence: return "BRIDGE_FENCE";
    case MsgType::kBridgeTable: return "BRIDGE_TABLE";
    case MsgType::kTreeCheckpoint: return "TREE_CHECKPOINT";
    case MsgType::kTreeDrained: return "TREE_DRAINED";
    case MsgType::kTreeGo: return "TREE_GO";
    case MsgType::kTreeAbort: return "TREE_ABORT";
    case MsgType::kTreeDone: return "TREE_DONE";
    default: break;
  }
  return "type " + std::to_string(type);
}

std::string encode_frame(MsgType type, std::string_view payload) {
  WireWriter w;
  w.u32(kMagic);
  w.u16(kProtocolVersion);
  w.u16(static_cast<uint16_t>(type));
  w.u32(static_cast<uint32_t>(payload.size()));
  std::string out = w.take();
  out.append(payload);
  return out;
}

Status parse_header(const unsigned char* hdr, uint16_t* type, uint32_t* length) {
  WireReader r(std::string_view(reinterpret_cast<const char*>(hdr), kHeaderBytes));
  uint32_t magic = 0, len = 0;
  uint16_t version = 0, t = 0;
  r.u32(&magic);
  r.u16(&version);
  r.u16(&t);
  r.u32(&len);
  char msg[160];
  if (magic != kMagic) {
    std::snprintf(msg, sizeof msg, "bad frame magic 0x%08x (not a Lazarus OOB peer)", magic);
    return ProtocolError(msg);
  }
  if (version != kProtocolVersion) {
    std::snprintf(msg, sizeof msg, "OOB protocol version %u, expected %u", version, kProtocolVersion);
    return ProtocolError(msg);
  }
  if (len > kMaxPayload) {
    std::snprintf(msg, sizeof msg, "frame payload of %u bytes exceeds the limit of %u", len, kMaxPayload);
    return ProtocolError(msg);
  }
  *type = t;
  *length = len;
  return Status::Ok();
}

Status FrameDecoder::peek_header(uint16_t* type, uint32_t* length) const {
  if (buffered() < kHeaderBytes) return Internal("peek_header with an incomplete header");
  return parse_header(reinterpret_cast<const unsigned char*>(buf_.data() + pos_), type, length);
}

StatusOr<bool> FrameDecoder::next(Frame* out) {
  if (buffered() < kHeaderBytes) return false;
  uint16_t type = 0;
  uint32_t len = 0;
  LZ_RETURN_IF_ERROR(parse_header(reinterpret_cast<const unsigned char*>(buf_.data() + pos_), &type, &len));
  if (buffered() - kHeaderBytes < len) return false;
  out->type = type;
  out->payload.assign(buf_.data() + pos_ + kHeaderBytes, len);
  pos_ += kHeaderBytes + len;
  // Compact once the consumed prefix dominates, so the buffer does not grow
  // without bound on a long-lived connection.
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 65536 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return true;
}

}  // namespace lz::oob
