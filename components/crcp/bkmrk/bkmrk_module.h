// crcp/bkmrk: LAM/MPI's bookmark coordination. Before a rank is saved, every
// channel to it is brought to a quiet, consistent state:
//
//   quiesce(c):  c.hold_sends(true)           no new frame leaves this rank
//                mine[p] = c.sent_to(p)        "sent" bookmarks, per peer
//                theirs = c.exchange(mine)     what each peer sent to us
//                progress receives until c.received_from(p) == theirs[p]
//   resume(c):   c.hold_sends(false)          held frames leave
//
// Exchange is the runtime's job (runtime/cr: CHECKPOINT_READY with the
// sent bookmarks, CHECKPOINT_DRAIN with the peers' ones, through the
// launcher); the drain is bounded by `timeout` and names the peers whose
// bookmarks never matched, with their counts.
//
// What the drain does with data, and which state survives in the image:
//  - Drained frames are delivered by the p2p engine like any other: eager
//    messages go to a posted receive (a wildcard MPI_ANY_SOURCE/MPI_ANY_TAG
//    receive matches them as usual, in MPI order) or to the unexpected queue.
//    Both are process memory, so they are part of the image; nothing is
//    dropped or replayed, so there is no special case for wildcards (the
//    hang of Open MPI's bkmrk, ompi#72, came from replaying drained messages
//    into receives posted later).
//  - Many Isend/Irecv outstanding: a send that left is counted and drained at
//    the receiver; a send started while sends are held is queued in the
//    sender's engine (its image) and leaves after resume.
//  - A rendezvous half done stays half done, consistently: an RTS that
//    arrived sits in the unexpected queue or starts a receive; the CTS, FIN,
//    ACK and kFrag frames the drain provokes are held and stay queued in the
//    image, leaving after resume (continue or restart), where the sender's
//    request (same address in a restored image) completes as usual. A
//    single-copy get (process_vm_readv) during the drain reads a peer whose
//    send buffer stays valid until its FIN, and the peer is frozen only by
//    its own entry lock, not stopped, so the read is safe.
//  - In the middle of a collective: a collective is point-to-point traffic
//    plus the state of its requests, all in process memory; it resumes
//    where it stopped.
// Counting is exact because the engine counts a frame as sent when the
// transport accepted it and as received when it is delivered, and
// transports neither lose nor duplicate frames.
#pragma once

#include <chrono>

#include "lazarus/frameworks/crcp.h"

namespace lz::crcp::bkmrk {

class BkmrkModule final : public Module {
 public:
  explicit BkmrkModule(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  uint64_t capabilities() const override { return kCapDrain; }
  Status quiesce(Coordinator& c) override;
  Status resume(Coordinator& c, bool restarted) override;

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace lz::crcp::bkmrk
