// ProcessName: a process as every job names it (job id, world rank in that
// job), and its byte encoding for the messages that carry groups between
// processes of different jobs (p2p/dpm.h, intercomm_factory.h), where a
// world rank alone means another process on each side.
#pragma once

#include <string>
#include <vector>

#include "oob/wire.h"

namespace lz::rt {

struct ProcessName {
  std::string job;   // the job id of its launcher
  int rank = 0;      // its world rank in that job
  std::string host;  // the host it runs on
  bool operator==(const ProcessName& o) const { return rank == o.rank && job == o.job; }
};

// A u32 count, then each name's job, rank and host.
void put_names(oob::WireWriter& w, const std::vector<ProcessName>& names);
// The list put_names() wrote (at most 2^20 names); false when it does not decode.
bool get_names(oob::WireReader& r, std::vector<ProcessName>* out);

}  // namespace lz::rt
