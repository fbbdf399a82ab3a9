// Payloads of the dynamic-process messages (oob/frame.h, "dynamic processes
// 128..143"): a rank asks its launcher to start a new job (MPI_Comm_spawn,
// MPI_Comm_spawn_multiple) and hears whether it started. Bounds-checked
// decoders that follow oob/messages.h's rules: every length is checked
// against the remaining payload and a per-field limit, the payload must end
// where the message ends, and an error is kProtocol naming the message.
//
//   SpawnRequestMsg req;
//   req.seq = ++spawn_seq;
//   req.apps.push_back({"./worker", {"-v"}, 4});
//   req.env = {"LZ_SPAWN_PARENT=..."};
//   client.send(MsgType::kSpawnRequest, encode_spawn_request(req));
//   ...
//   SpawnReplyMsg rep;  LZ_RETURN_IF_ERROR(decode_spawn_reply(frame.payload, &rep));
//
// Only the shape is checked here (counts and lengths): a request that
// decodes is answered. Its values (no app, an empty command, maxprocs < 1, a
// command that is not found, a host list that does not parse ...) are the
// launcher's to judge (launcher/spawned_jobs.h), which refuses them with
// ok = 0 and a message naming the value, and the job goes on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"
#include "oob/helper_messages.h"  // kMaxArgBytes, kMaxArgs, kMaxPathBytes

namespace lz::oob {

// Limits of a request. The strings and counts follow a rank's command line
// (oob/helper_messages.h: kMaxArgBytes, kMaxArgs); the frame limit
// (kMaxPayload) bounds the total.
inline constexpr uint32_t kMaxSpawnApps = 1024;     // apps of one MPI_Comm_spawn_multiple
inline constexpr int32_t kMaxSpawnProcs = 1 << 20;  // maxprocs of one app (kMaxRanks; the launcher checks)
inline constexpr size_t kMaxSpawnMessageBytes = 64 * 1024;

// One program of the new job: MPI_Comm_spawn's command, argv and maxprocs,
// and the info keys the launcher acts on.
struct SpawnApp {
  std::string command;            // the program (as MPI_Comm_spawn's `command`)
  std::vector<std::string> argv;  // its arguments (without the command)
  int32_t maxprocs = 1;           // >= 1
  std::string host;               // info "host": comma-separated host list, empty = default placement
  std::string hostfile;           // info "hostfile"
  std::string wdir;               // info "wdir"
  std::string path;               // info "path": where to look for `command`
};

// SPAWN_REQUEST: rank -> launcher.
struct SpawnRequestMsg {
  uint64_t seq = 0;              // the rank's own counter, echoed in the reply
  std::vector<SpawnApp> apps;    // one for MPI_Comm_spawn, several for _spawn_multiple
  std::vector<std::string> env;  // "NAME=VALUE" entries every rank of the new job must see in its environment
};

// SPAWN_REPLY: launcher -> rank.
struct SpawnReplyMsg {
  uint64_t seq = 0;
  int32_t ok = 0;       // 1: the new job's launcher was started; 0: refused
  std::string message;  // when refused: why, naming the bad value
};

std::string encode_spawn_request(const SpawnRequestMsg& m);
// kProtocol for a malformed payload (a count or length beyond its limit or
// the payload, bytes after the message).
Status decode_spawn_request(std::string_view p, SpawnRequestMsg* out);
std::string encode_spawn_reply(const SpawnReplyMsg& m);
// kProtocol for a malformed payload or an ok other than 0 or 1.
Status decode_spawn_reply(std::string_view p, SpawnReplyMsg* out);

}  // namespace lz::oob
