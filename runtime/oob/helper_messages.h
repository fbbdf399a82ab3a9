// Payloads of the launcher <-> per-host helper messages (oob/frame.h has the
// sequence, launcher/helper.h the helper), with bounds-checked decoders that
// follow oob/messages.h's rules: every length is checked against the
// remaining payload and a per-field limit, and the payload must end where
// the message ends; an error is kProtocol naming the message.
//
//   std::string p = encode_helper_start({rank, argv, env, cwd, cpus});
//   HelperStartMsg m;  LZ_RETURN_IF_ERROR(decode_helper_start(frame.payload, &m));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::oob {

// Limits of a rank's command: Linux's per-string limit (MAX_ARG_STRLEN) and
// a generous count; the frame limit (kMaxPayload) bounds the total.
inline constexpr size_t kMaxArgBytes = 128 * 1024;
inline constexpr uint32_t kMaxArgs = 1u << 16;
inline constexpr size_t kMaxPathBytes = 4096;
inline constexpr uint32_t kMaxCpus = 1u << 16;
// One HELPER_OUTPUT frame carries at most this much of a rank's output.
inline constexpr size_t kMaxOutputChunk = 1u << 20;

inline constexpr uint8_t kHelperStdout = 1;
inline constexpr uint8_t kHelperStderr = 2;

// HELPER_START: start one rank (the job secret is the helper's own: it came
// on the helper's stdin and goes to the rank through an inherited pipe).
struct HelperStartMsg {
  uint32_t rank = 0;
  uint32_t flags = 0;             // none defined yet; a helper refuses bits it does not know
  std::vector<std::string> argv;  // argv[0] looked up in the rank's PATH
  std::vector<std::string> env;   // the rank's complete environment
  std::string cwd;                // empty: the helper's
  std::vector<uint32_t> cpus;     // bind to these CPUs; empty: unbound
};

// HELPER_STARTED: the rank runs (pid on the helper's host), or it could not
// be started (error: an errno value, reason says what failed).
struct HelperStartedMsg {
  uint32_t rank = 0;
  int32_t pid = -1;
  int32_t error = 0;
  std::string reason;
};

// HELPER_SIGNAL: send `signal` to the rank's process group and process.
struct HelperSignalMsg {
  uint32_t rank = 0;
  int32_t signal = 0;
};

// HELPER_OUTPUT: bytes of a rank's stdout or stderr; empty data: that stream
// ended (EOF).
struct HelperOutputMsg {
  uint32_t rank = 0;
  uint8_t stream = kHelperStdout;
  std::string data;
};

// HELPER_EXIT: the rank ended; its wait status as waitpid() gave it.
struct HelperExitMsg {
  uint32_t rank = 0;
  int32_t wait_status = 0;
};

// HELPER_RESTORE: bring rank `rank` back from its core image in `dir` (the
// rank's directory of a committed snapshot, on a file system the helper's
// host sees) on the helper's host, and run it as a started rank: the helper
// answers HELPER_STARTED, forwards its output and reports its exit. `params`
// ("name=value", the job's parameters) select and configure the cr module
// that restores it; `env` gives LZ_JOB_ID and LZ_OOB_ADDR of the job the
// restored rank reconnects to (the secret is the helper's own).
struct HelperRestoreMsg {
  uint32_t rank = 0;
  uint32_t flags = 0;  // none defined yet; a helper refuses bits it does not know
  uint64_t seq = 0;    // the snapshot's number (the restored rank is told it)
  std::string dir;
  std::vector<std::string> params;
  std::vector<std::string> env;
};

std::string encode_helper_start(const HelperStartMsg& m);
Status decode_helper_start(std::string_view p, HelperStartMsg* out);
std::string encode_helper_started(const HelperStartedMsg& m);
Status decode_helper_started(std::string_view p, HelperStartedMsg* out);
std::string encode_helper_signal(const HelperSignalMsg& m);
Status decode_helper_signal(std::string_view p, HelperSignalMsg* out);
std::string encode_helper_output(const HelperOutputMsg& m);
Status decode_helper_output(std::string_view p, HelperOutputMsg* out);
std::string encode_helper_exit(const HelperExitMsg& m);
Status decode_helper_exit(std::string_view p, HelperExitMsg* out);
std::string encode_helper_restore(const HelperRestoreMsg& m);
Status decode_helper_restore(std::string_view p, HelperRestoreMsg* out);

}  // namespace lz::oob
