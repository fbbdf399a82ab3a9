// Parameters of the out-of-band channel and the launcher (owner "runtime").
//
// Both the launcher and every rank register them: the launcher forwards each
// non-default parameter to its ranks as LZ_MCA_<name>, and a rank's registry
// must know those names too or its configure() would refuse them.
//
//   lz::Registry reg;
//   LZ_RETURN_IF_ERROR(lz::oob::register_runtime_params(reg));
//   LZ_RETURN_IF_ERROR(reg.configure(options));
//   double grace = reg.params().get_double(lz::oob::kParamKillGrace);
#pragma once

#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::oob {

inline constexpr const char* kParamAddress = "oob_address";
inline constexpr const char* kParamPort = "oob_port";
inline constexpr const char* kParamHandshakeTimeout = "oob_handshake_timeout";
inline constexpr const char* kParamConnectTimeout = "oob_connect_timeout";
inline constexpr const char* kParamKillGrace = "launch_kill_grace";
inline constexpr const char* kParamLaunchAgent = "launch_agent";
inline constexpr const char* kParamLaunchAgentTimeout = "launch_agent_timeout";
inline constexpr const char* kParamHelperKeepalive = "launch_helper_keepalive";
inline constexpr const char* kParamHelperPidNamespace = "launch_helper_pid_namespace";
inline constexpr const char* kParamLauncher = "launcher";
inline constexpr const char* kParamBootstrap = "bootstrap";
inline constexpr const char* kParamLaunchSrun = "launch_srun";
inline constexpr const char* kParamLaunchPrefix = "launch_prefix";

// Registers the table once (a second call is a no-op).
Status register_runtime_params(Registry& reg);

}  // namespace lz::oob
