// transport/ucx configuration: the component's one parameter table and the
// resolved values a module works with (validated once by query(), so the
// module never reads the ParamStore on a hot path).
//
//   LZ_ASSIGN_OR_RETURN(UcxConfig c, load_config(*ctx.params, ctx.param_prefix));
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "lazarus/param.h"
#include "lazarus/param_reader.h"
#include "lazarus/status.h"

namespace lz {
class ParamStore;
}

namespace lz::transport::ucx {

// Full names are transport_ucx_<name>.
inline constexpr ParamSpec kUcxParams[] = {
    {"tls", ParamType::kString, "posix,cma,tcp,self",
     "UCX transports (UCX_TLS) the UCP context may use: posix and cma between ranks of a host (0.6 us), tcp "
     "between hosts. Names as `ucx_info -d` lists them (posix, sysv, cma, tcp, self, rc, ud, dc, ...) or UCX "
     "aliases (sm, shm, ib, all)",
     2},
    {"auto_select", ParamType::kBool, "false",
     "Take part in the default transport selection (no 'transport' list naming ucx). Off: a job uses ucx only "
     "when asked (--mca transport ucx,self), as Open MPI's pml ucx declines without a device of its own; on "
     "hosts where UCX offers only shared memory and TCP, shm and tcp carry the same frames without a UCX "
     "context in every rank",
     3},
    {"max_frame", ParamType::kSize, "8m",
     "Largest frame (engine header and payload) one send() carries; larger messages go by the engine's rendezvous. "
     "To a peer whose memory UCX cannot read (tcp), messages up to this size go as one frame under UCX's "
     "rendezvous (transport_ucx_zcopy_threshold): 1 and 4 MiB ping-pongs over tcp 116 and 543 us with 8m, 132 "
     "and 536-576 with 512k (Open MPI 111 and 518). An unexpected one is held whole by its receiver",
     4},
    {"pull_threshold", ParamType::kSize, "128k",
     "Rendezvous messages of at least this many bytes, to a peer whose memory UCX cannot read by itself (tcp: no "
     "get_zcopy), are pulled by the receiver: a request frame, then the sender's UCX sends the bytes with its own "
     "rendezvous (zero copy, straight into the receive buffer). Smaller ones are streamed in frames (copied on "
     "both sides, but one round trip less). 1 MiB ping-pongs over tcp: 2 x faster pulled",
     4},
    {"pull_zcopy", ParamType::kBool, "true",
     "Answer pulls on a second endpoint to the reader, opened without UCX error handling: UCX 1.13 sends a "
     "rendezvous over tcp zero-copy (put_zcopy) only on such an endpoint, and copies it through active-message "
     "fragments otherwise (ping-pongs over tcp: 1 MiB 209 us against 129, 4 MiB 734 against 502). The owner's "
     "death is still seen through the first endpoint and its pidfd",
     4},
    {"zcopy_threshold", ParamType::kSize, "64k",
     "Messages of at least this many bytes (up to transport_ucx_max_frame), to a peer whose memory UCX cannot read "
     "by itself (tcp), go as one frame under UCX's own rendezvous, from the sender's buffer; the receiver places "
     "them straight into a matching posted receive. One rendezvous instead of the engine's and then UCX's: "
     "256 KiB ping-pongs over tcp 48 us against 66 (Open MPI 46; ucx_head_frame.cpp). 0: never",
     4},
    {"send_queue_limit", ParamType::kSize, "8m",
     "Bytes of accepted frames not yet completed by UCX (each counted as at least 256 bytes) beyond which send() "
     "answers would-block",
     5},
    {"liveness_ms", ParamType::kInt, "100",
     "How often a busy rank checks, through pidfds, that the ranks of its host are alive (UCX's shared-memory "
     "transports report a dead peer only after a 20 s keepalive); a sleeping rank wakes at once",
     5},
    {"checkpoint_timeout", ParamType::kDouble, "10",
     "Seconds on_checkpoint may wait for outstanding sends and flushes to complete before it refuses", 6},
};
inline constexpr size_t kNumUcxParams = std::size(kUcxParams);

struct UcxConfig {
  std::string tls;             // UCX_TLS for the UCP context
  bool auto_select{};          // take part in selection without being named
  size_t max_frame{};          // largest frame, bytes
  size_t pull_threshold{};     // rendezvous bytes pulled through UCX's rendezvous (no native get)
  bool pull_zcopy{};           // answer pulls on an endpoint without error handling
  size_t zcopy_threshold{};    // frames sent by send_zcopy() under UCX's rendezvous (0: never)
  size_t send_queue_limit{};   // outstanding bytes before kWouldBlock
  int64_t liveness_ms{};       // pidfd check period on a busy rank
  double checkpoint_timeout{};  // seconds
};

inline constexpr size_t kMinMaxFrame = 4096;
inline constexpr size_t kMaxMaxFrame = size_t{1} << 30;

StatusOr<UcxConfig> load_config(const ParamReader& params);
StatusOr<UcxConfig> load_config(const ParamStore& params, const std::string& prefix);
UcxConfig default_config();

}  // namespace lz::transport::ucx
