#include "ucx_config.h"

#include <cctype>

#include "lazarus/param_store.h"

namespace lz::transport::ucx {
namespace {

// UCX_TLS syntax: an optional leading '^' (exclude), then names of
// [a-z0-9_] with an optional ":aux" suffix, comma-separated. Which names
// exist is known only once UCX is loaded (ucx_resources.cpp checks them in
// init()); here a typo of syntax is caught without touching UCX.
bool valid_tls(const std::string& v) {
  std::string s = v;
  if (!s.empty() && s[0] == '^') s.erase(0, 1);
  if (s.empty()) return false;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(',', start);
    std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (item.size() > 4 && item.compare(item.size() - 4, 4, ":aux") == 0) item.resize(item.size() - 4);
    if (item.empty()) return false;
    for (char c : item)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
        return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

}  // namespace

StatusOr<UcxConfig> load_config(const ParamReader& params) {
  UcxConfig c;
  auto name = [&](const char* n) { return params.full_name(n); };
  c.tls = params.get_string("tls");
  if (!valid_tls(c.tls))
    return InvalidArgument(name("tls") + " = '" + c.tls +
                           "' is not a UCX transport list: give comma-separated UCX transport names, optionally "
                           "after '^' to exclude them (for example posix,cma,tcp,self or tcp; `ucx_info -d` "
                           "lists them)");
  c.auto_select = params.get_bool("auto_select");
  const int64_t mf = params.get_int("max_frame");
  if (mf < static_cast<int64_t>(kMinMaxFrame) || mf > static_cast<int64_t>(kMaxMaxFrame))
    return InvalidArgument(name("max_frame") + " = " + std::to_string(mf) + " is outside 4k..1g");
  c.max_frame = static_cast<size_t>(mf);
  const int64_t pt = params.get_int("pull_threshold");
  if (pt < 0) return InvalidArgument(name("pull_threshold") + " = " + std::to_string(pt) + " must not be negative");
  c.pull_threshold = static_cast<size_t>(pt);
  c.pull_zcopy = params.get_bool("pull_zcopy");
  const int64_t zt = params.get_int("zcopy_threshold");
  if (zt < 0) return InvalidArgument(name("zcopy_threshold") + " = " + std::to_string(zt) + " must not be negative");
  c.zcopy_threshold = static_cast<size_t>(zt);
  const int64_t ql = params.get_int("send_queue_limit");
  if (ql <= 0) return InvalidArgument(name("send_queue_limit") + " = " + std::to_string(ql) + " must be positive");
  c.send_queue_limit = static_cast<size_t>(ql);
  c.liveness_ms = params.get_int("liveness_ms");
  if (c.liveness_ms < 1 || c.liveness_ms > 60000)
    return InvalidArgument(name("liveness_ms") + " = " + std::to_string(c.liveness_ms) + " is outside 1..60000");
  c.checkpoint_timeout = params.get_double("checkpoint_timeout");
  if (!(c.checkpoint_timeout > 0))
    return InvalidArgument(name("checkpoint_timeout") + " = " + std::to_string(c.checkpoint_timeout) +
                           " must be a positive number of seconds");
  return c;
}

StatusOr<UcxConfig> load_config(const ParamStore& params, const std::string& prefix) {
  return load_config(ParamReader(params, prefix));
}

UcxConfig default_config() { return load_config(ParamReader(kUcxParams, "transport_ucx_")).value(); }

}  // namespace lz::transport::ucx
