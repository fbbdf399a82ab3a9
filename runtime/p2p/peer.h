// Peer: what the engine keeps per world rank — the transport chosen for it,
// protocol limits, bookmarks, and frames waiting for room in the transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"
#include "p2p/request.h"

namespace lz::rt {

// An outgoing frame that could not be handed to the transport yet: either a
// copy of the bytes, or a rendezvous stream (kFrag frames generated from
// `stream` until its data is all sent).
struct PendingFrame {
  std::string bytes;
  Request* stream = nullptr;
};

struct Peer {
  transport::Module* transport = nullptr;
  int index = 0;            // this peer's rank for `transport`: its world rank, or its rank in a dpm Bridge
  size_t max_payload = 0;   // transport max_frame minus the wire header
  size_t eager_limit = 0;   // p2p_eager_limit (or the transport's), at most max_payload
  size_t get_threshold = 0; // rendezvous of at least this many bytes read with get
  size_t zcopy_from = 0;    // eager messages of at least this many bytes go with send_zcopy (0: none)
  bool has_get = false;     // transport::kCapGet
  bool failed = false;
  crcp::Bookmark sent;
  crcp::Bookmark received;
  // Messages (eager and RTS frames, not the protocols' replies) handed to
  // send_frame for this peer and delivered from it: unlike the bookmarks
  // they do not move once the program stops sending (a migration's safe
  // point), while rendezvous replies still flow.
  uint64_t messages_sent = 0;
  uint64_t messages_received = 0;
  std::deque<PendingFrame> pending;
  // Requests waiting for a reply from this peer (rendezvous, sync sends,
  // rendezvous receives streaming in), failed together if the peer dies.
  Request* waiting = nullptr;
  // The receive whose buffer the transport is writing a frame into (a
  // streamed rendezvous piece or a whole eager message: Engine::place),
  // until deliver_placed or drop_placement.
  Request* placing = nullptr;
};

}  // namespace lz::rt
