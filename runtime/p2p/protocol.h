// The p2p wire protocol: the envelope the engine puts in the first bytes of
// every transport frame.
//
// Frame = Header (48 bytes, host byte order: every rank of a job runs on the
// same architecture) + payload. Types:
//   kEager  header + the whole message. flags kSync: the receiver answers
//           kAck{sreq} when it matches (MPI_Ssend / MPI_Issend).
//   kRts    rendezvous request: length = message bytes, sreq = the sender's
//           request, addr = the sender's (packed) buffer address. flags
//           kFlagGet: the sender registered that buffer for the receiver's
//           get_async(); the payload is the transport's packed remote key.
//           Without it the receiver answers kCts.
//   kCts    receiver -> sender: "stream it to rreq" (transport without get()).
//   kFrag   sender -> receiver: a piece of the message at byte `addr` (offset)
//           for request rreq; pieces arrive in order.
//   kFin    receiver -> sender: the receiver get()-copied the data of sreq.
//   kAck    receiver -> sender: a synchronous eager message of sreq matched.
//   kCancel sender -> receiver: withdraw message sreq (an RTS, or a
//           synchronous eager message) if no receive has matched it: the
//           receiver takes it out of its unexpected queue of `context`.
//   kCancelAck receiver -> sender: the answer for sreq; rreq 1: withdrawn
//           (never matched, nothing more comes for it), 0: already matched
//           (the protocol runs to its end as usual).
//   kMarker one process -> a peer of another job, during a spawn tree's
//           checkpoint (runtime/cr/bridge_drain.h): "every frame I sent you
//           before I stopped sending": sreq = frames, rreq = bytes (the
//           sender's Engine::sent_to), addr = generation << 32 | echo (the
//           sender's drain number with this peer, and the last generation it
//           received from the peer). Header only; never matched or delivered
//           to MPI and not counted in the bookmarks.
//   kLineCount one process -> a peer of another job, under cr=app in a spawn
//           tree (runtime/cr/app_service.h): "at my line of epoch rreq I had
//           sent you sreq messages" (crcp.h LineProtocol::expect_peer);
//           rreq = kLineEnded: "I take no more lines" (MPI_Finalize).
//           Header only; counted like any frame, never delivered to MPI.
// kEager and kRts carry in `rreq` the message's stamp for application-level
// checkpoints (crcp.h: the sender's epoch and the message's index in it);
// zero when no such protocol runs.
// Request ids are the requests' addresses in the process that owns them; they
// are only ever handed back to that process.
#pragma once

#include <cstdint>

namespace lz::rt::wire {

inline constexpr uint8_t kVersion = 1;

// clang-format off
enum Type : uint8_t { kEager = 1, kRts = 2, kCts = 3, kFrag = 4, kFin = 5, kAck = 6, kCancel = 7, kCancelAck = 8,
                      kMarker = 9, kLineCount = 10 };
// clang-format on
inline constexpr uint64_t kLineEnded = ~uint64_t{0};
enum Flags : uint8_t { kFlagSync = 1, kFlagGet = 2 };

struct Header {
  uint8_t version;
  uint8_t type;
  uint8_t flags;
  uint8_t reserved;
  uint32_t context;  // matching context (communicator p2p or collective context)
  int32_t src;       // sender's rank in the communicator
  int32_t tag;
  uint64_t length;   // kEager/kFrag: payload bytes; kRts: message bytes
  uint64_t sreq;     // sender's request id
  uint64_t rreq;     // receiver's request id (kCts, kFrag); the stamp (kEager, kRts)
  uint64_t addr;     // kRts: sender buffer address; kFrag: byte offset
};
static_assert(sizeof(Header) == 48, "wire header layout changed");

}  // namespace lz::rt::wire
