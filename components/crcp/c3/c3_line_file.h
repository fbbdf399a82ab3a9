// The file a c3 line saves beside the rank's variables
// (<snapshot>/rank.<r>/rank.<r>.c3), in the portable application-level
// format (runtime/appfmt: checksummed, little-endian, listed and verified by
// `lazarus snapshot show|verify` like the variables). Records, each a
// uint64 array whose first element is its entry count:
//   c3.epoch    {1, epoch}
//   c3.sent     {n, sent to rank 0, ...}
//   c3.matched  {k, (source, epoch, count) * k}
//   c3.early    {k, (source, stamp) * k}
//   c3.wild     {k, (wildcard number, source) * k}
//   c3.late     {k, (world source, context, source, tag, stamp, bytes) * k}
//   c3.payload  the late messages' bytes, back to back (byte array)
#pragma once

#include <string>

#include "c3_module.h"
#include "lazarus/appfmt/writer.h"

namespace lz::crcp::c3 {

StatusOr<uint64_t> write_line_file(const std::string& path, const LineState& s, const appfmt::Header& header);
StatusOr<LineState> read_line_file(const std::string& path);

}  // namespace lz::crcp::c3
