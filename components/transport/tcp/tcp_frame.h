// Frame codec of transport/tcp. After the handshake a connection carries
// frames: a 4-byte little-endian header, then the payload.
//
//   header bit 31 = 0: data frame, bits 0..30 = payload length (<= max_frame)
//   header bit 31 = 1: control frame, no payload, bits 0..30 = control code
//
// Control codes: kBye (the sender finalizes; its EOF that follows is orderly,
// not a failure); kCheckpoint (the sender's on_checkpoint() closes the
// connection: its EOF that follows is orderly, and the pair reconnects after
// both sides' connect() with fresh addresses). Unknown codes are a protocol error: a peer that speaks a
// newer protocol must have negotiated it in the handshake version first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lazarus/wire.h"

namespace lz::transport::tcp {

inline constexpr size_t kFrameHeaderBytes = 4;
inline constexpr uint32_t kControlBit = 1u << 31;
enum ControlCode : uint32_t { kBye = 1, kCheckpoint = 2 };

inline void encode_frame_header(uint32_t header, unsigned char out[kFrameHeaderBytes]) {
  wire::put_le32(out, header);
}
inline uint32_t decode_frame_header(const unsigned char* in) { return wire::get_le32(in); }

}  // namespace lz::transport::tcp
