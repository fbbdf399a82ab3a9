// Typed payloads of the OOB messages (see oob/frame.h for the framing and the
// type numbers), with their encoders and bounds-checked decoders.
//
// Every decoder checks each length against the remaining payload and against
// a per-field limit, checks ranks against the job size where it is known, and
// requires the payload to end exactly where the message ends. A decoder error
// is kProtocol and names the message; the caller drops the peer.
//
//   std::string p = encode_auth({rank, kAuthReconnect, mac});
//   AuthMsg a;  LZ_RETURN_IF_ERROR(decode_auth(frame.payload, &a));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lazarus/auth.h"
#include "lazarus/status.h"

namespace lz::oob {

inline constexpr size_t kMaxJobIdBytes = 256;
inline constexpr size_t kMaxHostnameBytes = 1024;
inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kMaxReasonBytes = 64 * 1024;
inline constexpr uint32_t kMaxRanks = 1u << 20;

// HELLO: launcher -> connecting peer, first frame on every connection.
struct HelloMsg {
  auth::Nonce nonce{};
  std::string job_id;
};

// AUTH: the peer's answer. The MAC is auth::mac(secret, "oob", nonce, auth_id(job_id, rank)).
inline constexpr uint32_t kAuthReconnect = 1u << 0;  // the rank disconnect()ed and comes back
// A per-host helper, not a rank: `rank` is its host index, and the MAC is in
// context "oob-helper" (so a rank's MAC can never pass for a helper's).
inline constexpr uint32_t kAuthHelper = 1u << 1;
inline constexpr const char* kHelperAuthContext = "oob-helper";
struct AuthMsg {
  uint32_t rank = 0;
  uint32_t flags = 0;
  auth::Mac mac{};
};
// The identity a rank proves: "<job id>/<rank>".
std::string auth_id(std::string_view job_id, uint32_t rank);

// WELCOME: the job layout, sent once the rank is authenticated.
struct WelcomeMsg {
  std::string job_id;
  uint32_t size = 0;
  std::vector<uint64_t> node_of_rank;
  std::vector<std::string> hostname_of_rank;
  // Modex fences and barriers the job has completed: a process that joins
  // the running job as one of its ranks (cr=app migration, LZ_CR_APP_JOIN)
  // numbers its rounds from there. Every other rank counts its own.
  uint64_t fences_done = 0;
  uint64_t barriers_done = 0;
};

// ERROR: why the launcher refuses or ends the connection.
struct ErrorMsg {
  std::string reason;
};

// FENCE: a rank's puts since its previous fence.
using KeyValues = std::vector<std::pair<std::string, std::string>>;
struct FenceMsg {
  uint64_t seq = 0;
  KeyValues entries;
};

// FENCE_DONE: the entries every rank put for this fence.
struct FenceEntry {
  uint32_t rank = 0;
  std::string key;
  std::string value;
};
struct FenceDoneMsg {
  uint64_t seq = 0;
  std::vector<FenceEntry> entries;
};

// BARRIER / BARRIER_DONE.
struct SeqMsg {
  uint64_t seq = 0;
};

// ABORT.
struct AbortMsg {
  int32_t code = 1;
  std::string reason;
};

// ---- CR protocol (oob/frame.h has the sequence) -------------------------------

// CHECKPOINT_REQUEST.
inline constexpr uint32_t kCrTerminate = 1u << 0;  // the job ends after a committed snapshot (--term)
// A migration (`lazarus migrate`): this rank stays where it is. It quiesces,
// releases and re-creates its transports like any rank of a checkpoint (its
// moving peers get new addresses), but writes no image and keeps its OOB
// connection; `dir` is empty. The moving ranks get kCrTerminate and a dir.
inline constexpr uint32_t kCrNoImage = 1u << 1;
// With kCrNoImage: a moving rank changes hosts. The staying rank reconnects
// to the launcher after GO anyway, and takes the WELCOME's layout (where
// every rank lives now) before it re-creates its transports.
inline constexpr uint32_t kCrNewLayout = 1u << 2;
// A migration of a cr=app job: the round runs at the negotiated safe point
// (APP_TARGET with dir "migrate"), in the application thread inside
// LZ_Checkpoint, not when the CR thread reads the request. Every rank gets it.
inline constexpr uint32_t kCrAtSafePoint = 1u << 3;
// With kCrAtSafePoint, for a moving rank: after GO it writes its registered
// variables and its hand-over (cr/app_handover.h) into `dir` and ends; a
// new process started on the target takes its place (LZ_CR_APP_JOIN).
inline constexpr uint32_t kCrHandover = 1u << 4;
// The job is part of a spawn tree (oob/tree_messages.h): the whole tree
// checkpoints in this round. The rank drains its bridges to other jobs
// in-band and re-opens them after GO through BRIDGE_FENCE. Without it, a
// rank with bridges refuses the checkpoint before anything is held.
inline constexpr uint32_t kCrSpawnTree = 1u << 5;
struct CrRequestMsg {
  uint64_t seq = 0;        // snapshot sequence number in the job's store
  uint32_t flags = 0;      // kCr*
  std::string dir;         // this rank's directory in the snapshot (exists, 0700)
};

// CHECKPOINT_READY (per peer: what this rank sent to it) and CHECKPOINT_DRAIN
// (per peer: what it sent to this rank). Exactly `size` entries.
struct CrBookmark {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};
struct CrBookmarksMsg {
  uint64_t seq = 0;
  std::vector<CrBookmark> peers;
};

// CHECKPOINT_DONE.
inline constexpr uint32_t kCrOutcomeContinued = 0;
inline constexpr uint32_t kCrOutcomeRestarted = 1;
struct CrDoneMsg {
  uint64_t seq = 0;
  uint32_t outcome = kCrOutcomeContinued;
  uint64_t image_bytes = 0;  // bytes in the rank's directory after the dump
};

// CHECKPOINT_FAILED / CHECKPOINT_ABORT.
struct CrReasonMsg {
  uint64_t seq = 0;
  std::string reason;
};

// APP_DIR, APP_NEGOTIATE, APP_POSITION, APP_TARGET (oob/frame.h).
// APP_TARGET's dir for a migration's safe point: every rank stops there for
// the migration round (kCrAtSafePoint) instead of taking a snapshot.
inline constexpr const char* kAppTargetMigrate = "migrate";
struct AppPointMsg {
  uint64_t safe_point = 0;  // an LZ_Checkpoint call count
  uint64_t seq = 0;         // snapshot sequence number, or negotiation request number
  std::string dir;          // APP_DIR: this rank's directory in the snapshot
};

std::string encode_app_point(const AppPointMsg& m);
Status decode_app_point(std::string_view p, AppPointMsg* out);
std::string encode_cr_request(const CrRequestMsg& m);
Status decode_cr_request(std::string_view p, CrRequestMsg* out);
std::string encode_cr_bookmarks(const CrBookmarksMsg& m);
// `size`: ranks in the job; any other number of entries is a protocol error.
Status decode_cr_bookmarks(std::string_view p, uint32_t size, CrBookmarksMsg* out);
std::string encode_cr_done(const CrDoneMsg& m);
Status decode_cr_done(std::string_view p, CrDoneMsg* out);
std::string encode_cr_reason(const CrReasonMsg& m);
Status decode_cr_reason(std::string_view p, CrReasonMsg* out);
// The round (snapshot or migration) a checkpoint exchange message is about:
// the seq of CHECKPOINT_READY, _DRAIN (`size`: ranks in the job),
// _DRAINED, _GO, _DONE, _FAILED and _ABORT. Nothing for any other type or
// a payload that does not decode (the caller drops it as a stray message).
std::optional<uint64_t> cr_seq_of(uint16_t type, std::string_view payload, uint32_t size);

std::string encode_hello(const HelloMsg& m);
Status decode_hello(std::string_view p, HelloMsg* out);
std::string encode_auth(const AuthMsg& m);
Status decode_auth(std::string_view p, AuthMsg* out);
std::string encode_welcome(const WelcomeMsg& m);
Status decode_welcome(std::string_view p, WelcomeMsg* out);
std::string encode_error(const ErrorMsg& m);
Status decode_error(std::string_view p, ErrorMsg* out);
std::string encode_fence(const FenceMsg& m);
Status decode_fence(std::string_view p, FenceMsg* out);
std::string encode_fence_done(const FenceDoneMsg& m);
// `size`: ranks in the job; an entry naming another rank is a protocol error.
Status decode_fence_done(std::string_view p, uint32_t size, FenceDoneMsg* out);
std::string encode_seq(const SeqMsg& m);
Status decode_seq(std::string_view p, SeqMsg* out);
std::string encode_abort(const AbortMsg& m);
Status decode_abort(std::string_view p, AbortMsg* out);
// FINALIZE, FINALIZE_ACK, DISCONNECT, DISCONNECT_ACK have an empty payload.
Status decode_empty(std::string_view p, const char* what);

}  // namespace lz::oob
