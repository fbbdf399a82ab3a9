// Fuzz target: the OOB channel as a launcher or a rank reads it from a peer.
// The bytes are a stream cut into frames (FrameDecoder); every frame's
// payload goes through the decoder its type names, as the launcher and the
// rank dispatch them. Nothing may crash, hang or allocate without bound; a
// bad stream must end in an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "oob/frame.h"
#include "oob/messages.h"

using namespace lz::oob;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t np = 1u + data[0] % 16;  // the job size the receiver expects
  FrameDecoder dec;
  dec.feed(reinterpret_cast<const char*>(data + 1), size - 1);
  Frame f;
  for (int n = 0; n < 4096; ++n) {
    auto got = dec.next(&f);
    if (!got.ok() || !*got) break;
    const std::string_view p = f.payload;
    switch (static_cast<MsgType>(f.type)) {
      case MsgType::kHello: { HelloMsg m; (void)decode_hello(p, &m); break; }
      case MsgType::kAuth: { AuthMsg m; (void)decode_auth(p, &m); break; }
      case MsgType::kWelcome: { WelcomeMsg m; (void)decode_welcome(p, &m); break; }
      case MsgType::kError: { ErrorMsg m; (void)decode_error(p, &m); break; }
      case MsgType::kFence: { FenceMsg m; (void)decode_fence(p, &m); break; }
      case MsgType::kFenceDone: { FenceDoneMsg m; (void)decode_fence_done(p, np, &m); break; }
      case MsgType::kAbort: { AbortMsg m; (void)decode_abort(p, &m); break; }
      case MsgType::kCheckpointRequest: { CrRequestMsg m; (void)decode_cr_request(p, &m); break; }
      case MsgType::kCheckpointReady:
      case MsgType::kCheckpointDrain: { CrBookmarksMsg m; (void)decode_cr_bookmarks(p, np, &m); break; }
      case MsgType::kCheckpointDone: { CrDoneMsg m; (void)decode_cr_done(p, &m); break; }
      case MsgType::kCheckpointFailed:
      case MsgType::kCheckpointAbort: { CrReasonMsg m; (void)decode_cr_reason(p, &m); break; }
      default: { SeqMsg m; (void)decode_seq(p, &m); (void)decode_empty(p, "message"); break; }
    }
  }
  return 0;
}
