// Modex: the job-wide key-value exchange through which modules publish their
// addresses (Open MPI's "module exchange", PMIx put/fence/get).
//
// Each rank put()s its own entries, then every rank calls fence(); after the
// fence, get() returns any rank's entries. Values are opaque bytes. The runtime
// implements this over the out-of-band channel; tests implement it in memory.
//
//   modex.put("transport.tcp.addr", my_addr_bytes);
//   LZ_RETURN_IF_ERROR(modex.fence());
//   auto peer_addr = modex.get(peer_rank, "transport.tcp.addr");
#pragma once

#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz {

class Modex {
 public:
  virtual ~Modex() = default;
  // Publishes an entry of this rank; visible to others after the next fence().
  virtual Status put(std::string_view key, std::string_view value) = 0;
  // Collective over the job: returns when every rank's puts are visible.
  // Bounded by the job's timeout; kTimeout or kAborted when a rank is gone.
  virtual Status fence() = 0;
  // An entry of `rank` published before the last fence; kNotFound if absent.
  virtual StatusOr<std::string> get(int rank, std::string_view key) const = 0;
};

}  // namespace lz
