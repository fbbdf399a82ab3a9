// ShmAddress: what a rank publishes in the modex under kModexKey so that the
// ranks of its host can reach it: where its receive segment and doorbell are,
// its pid (for get() and liveness) and the segment's geometry.
//
// Encoded as "lzshm1\n" followed by one key=value line per field; decode()
// checks every field, since a modex value comes from another process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::transport::shm {

inline constexpr const char* kModexKey = "transport.shm.seg";

struct ShmAddress {
  int rank = -1;
  pid_t pid = 0;
  uint64_t node_id = 0;
  uint32_t num_rings = 0;
  uint64_t ring_bytes = 0;
  uint64_t probe_addr = 0;  // address of a known word in the owner, to test get() permission
  std::string segment_path;
  std::string doorbell_path;

  std::string encode() const;
  static StatusOr<ShmAddress> decode(std::string_view text);
};

}  // namespace lz::transport::shm
