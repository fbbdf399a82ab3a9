// transport/tcp configuration: the component's one parameter table and the
// resolved values a module works with. The descriptor registers kTcpParams;
// query() turns the current values into a TcpConfig (validated once, so the
// module never re-reads the ParamStore on a hot path).
//
//   LZ_ASSIGN_OR_RETURN(TcpConfig c, load_config(*ctx.params, ctx.param_prefix));
//   TcpConfig d = default_config();  // what the table declares
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "lazarus/param.h"
#include "lazarus/param_reader.h"
#include "lazarus/status.h"

namespace lz {
class ParamStore;
}

namespace lz::transport::tcp {

// The component's parameters: full names are transport_tcp_<name>.
inline constexpr ParamSpec kTcpParams[] = {
    {"if_include", ParamType::kList, "",
     "Interfaces to listen on and publish, by name (eth0) or CIDR (10.0.0.0/8); empty: every up interface, "
     "loopback included. Exclusive with if_exclude",
     2},
    {"if_exclude", ParamType::kList, "",
     "Interfaces never to use, by name or CIDR (for example lo,docker0). Exclusive with if_include", 2},
    {"sndbuf", ParamType::kSize, "0", "SO_SNDBUF of every connection; 0 keeps the kernel default and autotuning", 5},
    {"rcvbuf", ParamType::kSize, "0", "SO_RCVBUF of every connection; 0 keeps the kernel default and autotuning", 5},
    {"max_frame", ParamType::kSize, "512k",
     "Largest frame (engine header and payload) one send() carries; larger messages are fragmented by the engine", 4},
    {"send_queue_limit", ParamType::kSize, "8m",
     "Bytes queued per peer (not yet on the wire) beyond which send() answers would-block", 5},
    {"connect_timeout", ParamType::kDouble, "30",
     "Seconds allowed to connect to a peer and complete the authentication handshake", 4},
    {"handshake_timeout", ParamType::kDouble, "10",
     "Seconds an accepted connection may take to authenticate before it is refused", 5},
    {"max_pending_accepts", ParamType::kInt, "64",
     "Accepted but not yet authenticated connections held at once; the oldest is refused beyond it", 6},
    {"checkpoint_timeout", ParamType::kDouble, "10",
     "Seconds the checkpoint hook may spend pushing queued frames out and closing connections in order "
     "(the peer is checkpointing too) before it refuses, or closes without the peer's answer",
     6},
};
inline constexpr size_t kNumTcpParams = std::size(kTcpParams);

// Values come from load_config() only, so the table above is the one place a
// default is written; default_config() gives the table's defaults (tests).
struct TcpConfig {
  std::vector<std::string> if_include;  // interface names or CIDR blocks
  std::vector<std::string> if_exclude;
  int64_t sndbuf{};                     // 0: kernel default (keeps autotuning)
  int64_t rcvbuf{};
  size_t max_frame{};                   // largest frame payload, bytes
  size_t send_queue_limit{};            // per-peer queued bytes before kWouldBlock
  double connect_timeout{};             // seconds, outgoing connect + handshake
  double handshake_timeout{};           // seconds an accepted socket may take to authenticate
  int max_pending_accepts{};            // unauthenticated sockets held at once
  double checkpoint_timeout{};          // seconds, on_checkpoint flush and orderly close
};

// Smallest and largest max_frame accepted (the length field keeps bit 31 for
// control frames; 1 GiB leaves room and bounds a receive buffer).
inline constexpr size_t kMinMaxFrame = 4096;
inline constexpr size_t kMaxMaxFrame = size_t{1} << 30;

// Reads every parameter of the table and checks the values together
// (if_include and if_exclude are mutually exclusive); errors name the
// parameter as the reader does.
StatusOr<TcpConfig> load_config(const ParamReader& params);
// The current values of "<prefix><name>" in a resolved store.
StatusOr<TcpConfig> load_config(const ParamStore& params, const std::string& prefix);
// The table's defaults.
TcpConfig default_config();

}  // namespace lz::transport::tcp
