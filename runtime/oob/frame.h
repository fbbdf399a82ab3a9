// Frames of the out-of-band (OOB) protocol between the launcher and its ranks.
//
// Every message is a 12-byte header followed by its payload:
//   u32 magic  ("LZOB")     a peer that is not speaking this protocol is caught
//   u16 version (kProtocolVersion)                  at the first frame
//   u16 type    (MsgType)
//   u32 length  payload bytes, at most kMaxPayload
// all big-endian. The payload of each type is described in oob/messages.h.
//
// FrameDecoder turns a byte stream into frames incrementally (the launcher's
// non-blocking sockets deliver bytes in arbitrary pieces); it rejects a bad
// magic, an unknown version or an oversized length as soon as the header is
// complete, before buffering the payload, so a hostile peer cannot make the
// launcher allocate more than kMaxPayload for it.
//
//   FrameDecoder dec;
//   dec.feed(buf, n);
//   Frame f;
//   while (true) { auto got = dec.next(&f); if (!got.ok()) drop(peer); if (!*got) break; handle(f); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::oob {

inline constexpr uint32_t kMagic = 0x4C5A4F42;  // "LZOB"
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kHeaderBytes = 12;
inline constexpr uint32_t kMaxPayload = 64u << 20;  // 64 MiB

// Message types. Values are part of the wire protocol: never renumber.
enum class MsgType : uint16_t {
  // Handshake (oob/messages.h has the payloads).
  kHello = 1,    // launcher -> rank: challenge nonce, job id
  kAuth = 2,     // rank -> launcher: rank, flags, MAC over the nonce
  kWelcome = 3,  // launcher -> rank: job size and where every rank lives
  kError = 4,    // launcher -> rank: refusal or "the job is being stopped", with a reason

  // Modex and synchronisation.
  kFence = 16,        // rank -> launcher: sequence number and the rank's puts since its last fence
  kFenceDone = 17,    // launcher -> rank: every rank's entries of that fence
  kBarrier = 18,      // rank -> launcher: sequence number
  kBarrierDone = 19,  // launcher -> rank

  // Life cycle.
  kAbort = 32,          // rank -> launcher: exit code and reason (MPI_Abort)
  kFinalize = 33,       // rank -> launcher: finalized cleanly
  kFinalizeAck = 34,    // launcher -> rank: recorded; the rank may exit
  kDisconnect = 35,     // rank -> launcher: closing the OOB socket on purpose, will reconnect()
  kDisconnectAck = 36,  // launcher -> rank: recorded; the rank may close

  // Checkpoint/restart: the coordinated checkpoint of a job, with the
  // launcher as coordinator (payloads in oob/messages.h, "CR protocol"):
  //
  //   launcher                                   every rank (its CR thread)
  //   CHECKPOINT_REQUEST{seq, flags, dir}  ->    takes the entry lock, holds sends
  //                                        <-    CHECKPOINT_READY{seq, sent[p]}
  //   (all READY) CHECKPOINT_DRAIN{seq, expect[p] = what p sent to this rank} ->
  //                                              progresses receives until
  //                                              received_from(p) == expect[p]
  //                                        <-    CHECKPOINT_DRAINED{seq}
  //   (all DRAINED) CHECKPOINT_GO{seq}     ->    transports' on_checkpoint,
  //                                              DISCONNECT, dump into dir,
  //                                              reconnect (the new launcher
  //                                              after a restart)
  //                                        <-    CHECKPOINT_DONE{seq, outcome, bytes}
  //                                              | CHECKPOINT_FAILED{seq, reason}
  //   then every rank re-publishes its transport addresses and fences the
  //   modex (the fence is the barrier before traffic resumes), reconnects,
  //   releases held sends and the entry lock. The launcher commits the
  //   snapshot when every rank is DONE (outcome continued).
  //
  // Before GO, a FAILED from any rank (or CR_FINALIZING, or a rank's death)
  // makes the launcher send CHECKPOINT_ABORT{seq, reason} to the others: they
  // stop waiting, release held sends and the lock and go on (nothing was
  // released yet). After GO a failure only means the snapshot is not
  // committed; every rank still reconnects and fences.
  kCheckpointRequest = 64,  // launcher -> rank: CrRequestMsg
  kCheckpointReady = 65,    // rank -> launcher: CrBookmarksMsg (what this rank sent to each peer)
  kCheckpointDone = 66,     // rank -> launcher: CrDoneMsg
  kCheckpointFailed = 67,   // rank -> launcher: CrReasonMsg
  kContinue = 68,           // unused (the modex fence after a checkpoint is the barrier); kept reserved
  kRestartInfo = 69,        // unused (restart info reaches a restored rank through its restart pipe)
  kCheckpointDrain = 70,    // launcher -> rank: CrBookmarksMsg (what each peer sent to this rank)
  kCheckpointDrained = 71,  // rank -> launcher: SeqMsg
  kCheckpointGo = 72,       // launcher -> rank: SeqMsg
  kCheckpointAbort = 73,    // launcher -> rank: CrReasonMsg
  kCrReady = 74,            // rank -> launcher: SeqMsg{0}; the rank's CR service takes requests (end of MPI_Init)
  kCrFinalizing = 75,       // rank -> launcher: SeqMsg{0}; MPI_Finalize began, no checkpoint any more

  // Application-level checkpoints (cr=app): the application thread takes
  // them at LZ_Checkpoint safe points, every rank at the same call count
  // (its line), without waiting for the others (crcp/c3 has the protocol):
  //
  //   launcher                                   every rank
  //   (request or interval) APP_NEGOTIATE{req} -> CR thread: c = calls so far
  //                                        <-    APP_POSITION{req, c}
  //   (all) APP_TARGET{req, T = max c + 1} ->    a snapshot at call T
  //   (every cr_app_every calls: no negotiation)
  //                                        <-    APP_LINE{T, sent[p]} at its line (each
  //                                              entry's bytes: the line's epoch, by which
  //                                              a spawn tree's launchers pair their lines)
  //   (first LINE of T: begin a snapshot) APP_DIR{T, seq, dir} -> writes its variables
  //   (all LINEs of T) APP_EXPECT{T, what each p had sent this rank at p's line} ->
  //                                              logs the late messages
  //                                        <-    CHECKPOINT_DONE{T} | CHECKPOINT_FAILED{T, reason}
  //   (all DONE) commit; a newer line's commit drops older pending ones.
  // After APP_DIR a line is named by its safe point T, not by seq: a
  // dropped line's seq goes to the next snapshot, and a late message about
  // it must not be taken for the new one's.
  // A rank waits only at its own line, for APP_DIR, and, when it reported
  // its count and reaches the next call before APP_TARGET arrives, for that
  // answer: never for another rank's progress.
  //
  // Migration (`lazarus migrate`, `lazarus evacuate`) of a cr=app job: the
  // negotiation as above, then APP_TARGET{req, T, "migrate"} and at once the
  // migration's CHECKPOINT_REQUEST with kCrAtSafePoint (moving ranks:
  // kCrTerminate | kCrHandover and a dir; the others kCrNoImage). The CR
  // thread keeps the request; every rank stops at call T and runs the
  // checkpoint sequence above there, in LZ_Checkpoint, with two changes:
  // READY/DRAIN count messages, not frames, and sends are not held while
  // the drain waits (the program sends nothing past T; rendezvous replies
  // must flow); before DRAINED each rank pulls in every unexpected
  // rendezvous payload and waits until no transfer is under way, so that
  // nothing needs a moving rank's memory. After GO a moving rank writes its
  // variables and hand-over into dir and exits; the launcher starts a new
  // process per moving rank (LZ_CR_APP_RESTART, LZ_CR_APP_JOIN), which
  // authenticates as the rank reconnecting, numbers its fences from the
  // WELCOME's count, fences with the staying ranks (their fence after GO),
  // and answers CHECKPOINT_DONE{seq, restarted} once its CR service runs.
  // CHECKPOINT_ABORT before GO lets ranks waiting at T go on.
  kAppLine = 76,       // rank -> launcher: CrBookmarksMsg{safe point, messages sent to each rank}
  kAppDir = 77,        // launcher -> rank: AppPointMsg{safe point, seq, dir}
  kAppExpect = 78,     // launcher -> rank: CrBookmarksMsg{safe point, messages each rank sent this one}
  kAppNegotiate = 79,  // launcher -> rank: AppPointMsg{0, request, ""}
  kAppPosition = 80,   // rank -> launcher: AppPointMsg{calls so far, request, ""}
  kAppTarget = 81,     // launcher -> rank: AppPointMsg{safe point, request, ""}
  kCrReservedLast = 95,

  // Per-host helpers (`lazarus helper`, launcher/helper.h): for a job with
  // ranks on other hosts the launcher starts one helper per remote host
  // through the launch agent (ssh). The helper reads the job secret from its
  // stdin, connects to the launcher's OOB listener and authenticates with
  // AUTH{host index, kAuthHelper, MAC in context "oob-helper"}; WELCOME
  // follows as for a rank. Then (payloads in oob/helper_messages.h):
  //
  //   launcher                                   helper
  //   HELPER_START{rank, argv, env, cwd, cpus} -> forks the rank (its subreaper)
  //                                        <-    HELPER_STARTED{rank, pid | errno, reason}
  //                                        <-    HELPER_OUTPUT{rank, stream, bytes} (empty: EOF)
  //   HELPER_SIGNAL{rank, signal}          ->    kill(-pid) and kill(pid)
  //                                        <-    HELPER_EXIT{rank, wait status}
  //   HELPER_RESTORE{rank, seq, image dir,  ->   restores the rank's core image
  //                  cr params, env}              through the cr module those
  //                                               params select (a helper
  //                                               started with --pid-namespace:
  //                                               pid 1 of its own namespace)
  //                                        <-    HELPER_STARTED, then OUTPUT
  //                                               and EXIT as for a start
  //   (the launcher closes the connection) ->    SIGKILL to its ranks, exits
  //
  // Types up to kHelperReservedLast are kept for the helper's later duties
  // (dumps on its host); a helper answers a type it does not know with
  // HELPER_UNKNOWN so an older helper fails loudly, not silently.
  kHelperStart = 96,     // launcher -> helper: HelperStartMsg
  kHelperStarted = 97,   // helper -> launcher: HelperStartedMsg
  kHelperSignal = 98,    // launcher -> helper: HelperSignalMsg
  kHelperOutput = 99,    // helper -> launcher: HelperOutputMsg
  kHelperExit = 100,     // helper -> launcher: HelperExitMsg
  kHelperUnknown = 101,  // helper -> launcher: SeqMsg{the type it does not know}
  kHelperRestore = 102,  // launcher -> helper: HelperRestoreMsg
  kHelperReservedLast = 127,

  // Dynamic processes (MPI_Comm_spawn, MPI_Comm_spawn_multiple; payloads in
  // oob/spawn_messages.h). A rank asks its launcher to start a new job; the
  // launcher runs itself as that job's launcher (`lazarus run` with one
  // program per app) and answers once it started, or refused:
  //
  //   rank                                       launcher
  //   SPAWN_REQUEST{seq, apps, env}        ->    checks each app's command,
  //                                              starts `lazarus run ...`
  //                                        <-    SPAWN_REPLY{seq, ok, message}
  //
  // The new job runs beside the rank's: the launcher watches it, fails the
  // rank's job when it fails, waits for it before the job ends, and stops it
  // with the job. How its ranks reach the ones that spawned them is theirs
  // (req.env carries what they need).
  kSpawnRequest = 128,  // rank -> launcher: SpawnRequestMsg
  kSpawnReply = 129,    // launcher -> rank: SpawnReplyMsg
  // The spawn tree (oob/tree_messages.h has both conversations).
  kBridgeFence = 130,     // rank -> launcher -> parent launcher: BridgeFenceMsg
  kBridgeTable = 131,     // root launcher -> ... -> rank: BridgeTableMsg
  kTreeCheckpoint = 132,  // parent launcher -> child launcher: TreeRoundMsg
  kTreeDrained = 133,     // child -> parent: TreeRoundMsg
  kTreeGo = 134,          // parent -> child: TreeRoundMsg
  kTreeAbort = 135,       // parent -> child: TreeDoneMsg{round, 0, "", reason}
  kTreeDone = 136,        // child -> parent: TreeDoneMsg
  kDpmReservedLast = 143,
};

// "HELLO", "FENCE", ... or "type 1234" for an unknown value.
std::string msg_type_name(uint16_t type);

struct Frame {
  uint16_t type = 0;
  std::string payload;
};

// Header + payload, ready to write.
std::string encode_frame(MsgType type, std::string_view payload);

class FrameDecoder {
 public:
  // Appends received bytes.
  void feed(const char* data, size_t n) { buf_.append(data, n); }
  // Extracts the next complete frame into *out: true if one was extracted,
  // false if more bytes are needed, kProtocol for a bad header (the stream is
  // then unusable: drop the peer).
  StatusOr<bool> next(Frame* out);
  // Checks the header of the next frame once its 12 bytes are buffered (call
  // only when buffered() >= kHeaderBytes).
  Status peek_header(uint16_t* type, uint32_t* length) const;
  // Bytes buffered but not yet returned as a frame.
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
};

// Checks a 12-byte header; on success sets *type and *length.
Status parse_header(const unsigned char* hdr, uint16_t* type, uint32_t* length);

}  // namespace lz::oob
