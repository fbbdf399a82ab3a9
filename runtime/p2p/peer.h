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

// The markers of a spawn tree's checkpoint (protocol.h kMarker) with a peer
// of another job. Generations tell a marker of this drain from one of an
// earlier, failed round still on its way: a marker counts only when its echo
// is the generation of this process's own marker of the drain, that is, when
// the peer sent it after it had this drain's marker (runtime/cr/bridge_drain.h).
struct BridgeMarker {
  uint32_t gen_out = 0;     // this process's drains with the peer (the last marker's generation)
  uint32_t gen_in = 0;      // generation of the last marker received (0: none yet)
  uint32_t echo_in = 0;     // its echo: the last generation of ours the peer had seen
  crcp::Bookmark value_in;  // its bookmark: what the peer sent this process before it
};

struct Peer {
  transport::Module* transport = nullptr;
  int index = 0;            // this peer's rank for `transport`: its world rank, or its rank in a dpm Bridge
  size_t max_payload = 0;   // transport max_frame minus the wire header
  size_t eager_limit = 0;   // p2p_eager_limit (or the transport's), at most max_payload
  size_t get_threshold = 0; // rendezvous of at least this many bytes read with get
  size_t zcopy_from = 0;    // eager messages of at least this many bytes go with send_zcopy (0: none)
  bool has_get = false;     // transport::kCapGet
  bool rma_passive = false;  // transport::Attributes::rma_passive
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
  // A peer of another job (index >= world size): its bridge markers.
  BridgeMarker marker;
};

}  // namespace lz::rt
