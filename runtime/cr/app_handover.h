// AppHandover: what a moving rank of a cr=app job leaves for the process
// that takes its place (`lazarus migrate`), beside its registered variables
// (which the cr module writes as for a snapshot): the messages sent to it
// that it had not received at the safe point (Engine::take_all_unexpected,
// delivered again by Engine::replay in the new process before anything
// new), the coordination protocol's counters (crcp LineProtocol
// export_counters/import_counters), and the engine's per-peer message
// counts and next context id.
//
// One file, <rank dir>/handover, written complete (temporary name, fsync,
// rename) by the old process before it ends and read once by the new one.
// Little-endian, versioned, and closed by an FNV-1a 64 checksum of every
// byte before it: a truncated or damaged file, or one of another job or
// rank, is refused naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/frameworks/crcp.h"
#include "lazarus/status.h"
#include "p2p/comm_record.h"

namespace lz::rt {

struct AppHandover {
  std::string job_id;
  int rank = 0;
  uint64_t safe_point = 0;    // the LZ_Checkpoint call the rank stopped at
  uint64_t migration = 0;     // the migration's number (its round's seq)
  uint32_t next_context = 4;  // Engine::next_context() of the old process
  std::string counters;       // crcp export_counters() ("" without a message log)
  // Per world rank: the messages the old process sent to it and received
  // from it (Engine::messages_sent_to / messages_received_from), which the
  // next migration's drain compares with the peers' own counts.
  std::vector<uint64_t> sent, received;
  std::vector<crcp::Replayed> messages;
  // The communicators it made before its first safe point (p2p/comm_record.h).
  std::vector<CommRecord::Entry> comms;
};

Status write_app_handover(const std::string& rank_dir, const AppHandover& h);
// `job_id`, `rank`: what the reader expects (the file must say the same).
StatusOr<AppHandover> read_app_handover(const std::string& rank_dir, const std::string& job_id, int rank);

}  // namespace lz::rt
