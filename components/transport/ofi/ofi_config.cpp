#include "ofi_config.h"

#include "lazarus/frameworks/transport.h"
#include "lazarus/param_store.h"

namespace lz::transport::ofi {

StatusOr<OfiConfig> load_config(const ParamReader& params) {
  OfiConfig c;
  auto name = [&](const char* n) { return params.full_name(n); };
  c.provider = params.get_string("provider");
  if (c.provider.empty()) return InvalidArgument(name("provider") + " is empty; set a provider name or 'auto'");
  const int64_t mf = params.get_int("max_frame");
  if (mf < static_cast<int64_t>(kMinMaxFrame) || mf > static_cast<int64_t>(kMaxMaxFrame))
    return InvalidArgument(name("max_frame") + " = " + std::to_string(mf) + " is outside 1k..64m");
  c.max_frame = static_cast<size_t>(mf);
  const int64_t rx = params.get_int("rx_buffers");
  if (rx < 2 || rx > 65536) return InvalidArgument(name("rx_buffers") + " = " + std::to_string(rx) + " is outside 2..65536");
  c.rx_buffers = static_cast<size_t>(rx);
  const int64_t mo = params.get_int("max_outstanding");
  if (mo < 1 || mo > 65536)
    return InvalidArgument(name("max_outstanding") + " = " + std::to_string(mo) + " is outside 1..65536");
  c.max_outstanding = static_cast<size_t>(mo);
  const int64_t sl = params.get_int("send_limit");
  if (sl < mf) return InvalidArgument(name("send_limit") + " must be at least " + name("max_frame"));
  c.send_limit = static_cast<size_t>(sl);
  c.liveness_ms = params.get_int("liveness_ms");
  if (c.liveness_ms <= 0) return InvalidArgument(name("liveness_ms") + " must be positive");
  c.auto_select = params.get_bool("auto_select");
  c.rma = params.get_bool("rma");
  c.checkpoint_timeout = params.get_double("checkpoint_timeout");
  if (!(c.checkpoint_timeout > 0)) return InvalidArgument(name("checkpoint_timeout") + " must be positive");
  return c;
}

StatusOr<OfiConfig> load_config(const ParamStore& params, const std::string& prefix) {
  return load_config(ParamReader(params, prefix));
}

uint64_t capabilities_before_init(const OfiConfig& config) {
  uint64_t caps = kCapCheckpoint;
  if (config.provider != "shm" && config.provider != kAutoProvider && config.provider.find("rxd") == std::string::npos)
    caps |= kCapWaitFd;
  if (config.provider == "shm") caps |= kCapLocalHost;
  const std::string& p = config.provider;
  if (config.rma && (p == kAutoProvider || p == "shm" || p == "tcp" || p == "tcp;ofi_rxm")) caps |= kCapGet | kCapPut;
  return caps;
}

OfiConfig default_config() { return load_config(ParamReader(kOfiParams, "transport_ofi_")).value(); }

}  // namespace lz::transport::ofi
