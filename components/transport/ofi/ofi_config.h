// transport/ofi configuration: the component's one parameter table and the
// validated values a module is built with. The descriptor registers kOfiParams;
// query() turns the current values into an OfiConfig once, so the module never
// reads the ParamStore on a hot path.
//
//   LZ_ASSIGN_OR_RETURN(OfiConfig c, load_config(*ctx.params, ctx.param_prefix));
//   if (c.provider == kAutoProvider) ...  // decided in init(), from the job's hosts
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

namespace lz::transport::ofi {

inline constexpr const char* kAutoProvider = "auto";

// Full names are transport_ofi_<name>.
inline constexpr ParamSpec kOfiParams[] = {
    {"provider", ParamType::kString, "auto",
     "libfabric RDM provider, as fi_info names it (shm, tcp;ofi_rxm, ...; tcp alone gives tcp;ofi_rxm). auto: shm "
     "when every rank of the job is on this host (about 1 us here), otherwise tcp;ofi_rxm. shm reaches only ranks "
     "on the same host",
     3},
    {"max_frame", ParamType::kSize, "64k",
     "Largest frame (engine header and payload) one send() carries; larger messages are fragmented by the engine. "
     "Every posted receive buffer has this size",
     4},
    {"rx_buffers", ParamType::kInt, "64",
     "Receive buffers of max_frame bytes kept posted (re-posted after each delivery); at most the provider's "
     "receive queue size",
     5},
    {"max_outstanding", ParamType::kInt, "256",
     "Sends posted and not yet completed, over all peers, beyond which send() answers would-block; at most the "
     "provider's transmit queue size",
     5},
    {"send_limit", ParamType::kSize, "4m",
     "Bytes of frames to one peer posted and not yet completed beyond which send() answers would-block", 5},
    {"liveness_ms", ParamType::kInt, "100",
     "Milliseconds between checks that peers on this host are alive (pidfd) while this rank is busy", 7},
    {"checkpoint_timeout", ParamType::kDouble, "10",
     "Seconds the checkpoint hook may progress to complete this rank's outstanding sends before it refuses", 6},
    {"rma", ParamType::kBool, "true",
     "Ask the provider for FI_RMA reads and read rendezvous messages with them (single copy) where it has them "
     "(shm and tcp;ofi_rxm in libfabric 1.17, both measured faster than streaming the message in frames); off: "
     "every message is streamed",
     5},
    {"auto_select", ParamType::kBool, "false",
     "Take part in the default selection without being named in 'transport' (otherwise only --mca transport "
     "ofi,self selects it: here libfabric offers shm and tcp, which transport/shm and transport/tcp carry faster)",
     4},
};
inline constexpr size_t kNumOfiParams = std::size(kOfiParams);

struct OfiConfig {
  std::string provider;        // "auto" or an fi_info provider name
  size_t max_frame{};          // largest frame the engine hands to send(), bytes
  size_t rx_buffers{};         // receives kept posted
  size_t max_outstanding{};    // posted, uncompleted sends over all peers
  size_t send_limit{};         // posted, uncompleted bytes per peer
  int64_t liveness_ms{};       // period of the pidfd check while busy
  double checkpoint_timeout{};  // seconds on_checkpoint may spend completing sends
  bool auto_select{};          // take part in selection without being named
  bool rma{};                  // ask for FI_RMA reads (get_async)
};

inline constexpr size_t kMinMaxFrame = 1024;
inline constexpr size_t kMaxMaxFrame = size_t{64} << 20;

StatusOr<OfiConfig> load_config(const ParamReader& params);
StatusOr<OfiConfig> load_config(const ParamStore& params, const std::string& prefix);
OfiConfig default_config();

// The capabilities a module built with `config` declares before init() (for
// selection and `lazarus info`, without loading libfabric): checkpoint
// hooks always; a wait fd unless the provider is one without an fd wait
// object (shm, udp;ofi_rxd) or auto (shm on one host); local-host for shm;
// get when rma is on and the provider is one that has FI_RMA reads in
// libfabric 1.17 (shm, tcp;ofi_rxm, so auto too). After init() the module
// answers from the provider it opened.
uint64_t capabilities_before_init(const OfiConfig& config);

}  // namespace lz::transport::ofi
