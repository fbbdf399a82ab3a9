#include "tcp_config.h"

#include "lazarus/param_store.h"

namespace lz::transport::tcp {

StatusOr<TcpConfig> load_config(const ParamReader& params) {
  TcpConfig c;
  auto name = [&](const char* n) { return params.full_name(n); };
  c.if_include = params.get_list("if_include");
  c.if_exclude = params.get_list("if_exclude");
  if (!c.if_include.empty() && !c.if_exclude.empty())
    return InvalidArgument(name("if_include") + " and " + name("if_exclude") +
                           " are mutually exclusive; set only one");
  c.sndbuf = params.get_int("sndbuf");
  c.rcvbuf = params.get_int("rcvbuf");
  if (c.sndbuf < 0 || c.rcvbuf < 0 || c.sndbuf > (int64_t{1} << 30) || c.rcvbuf > (int64_t{1} << 30))
    return InvalidArgument(name("sndbuf") + "/" + name("rcvbuf") + " must be between 0 and 1G");
  const int64_t mf = params.get_int("max_frame");
  if (mf < static_cast<int64_t>(kMinMaxFrame) || mf > static_cast<int64_t>(kMaxMaxFrame))
    return InvalidArgument(name("max_frame") + " = " + std::to_string(mf) + " is outside 4k..1g");
  c.max_frame = static_cast<size_t>(mf);
  const int64_t ql = params.get_int("send_queue_limit");
  if (ql <= 0) return InvalidArgument(name("send_queue_limit") + " must be positive");
  c.send_queue_limit = static_cast<size_t>(ql);
  c.connect_timeout = params.get_double("connect_timeout");
  c.handshake_timeout = params.get_double("handshake_timeout");
  if (!(c.connect_timeout > 0) || !(c.handshake_timeout > 0))
    return InvalidArgument(name("connect_timeout") + " and " + name("handshake_timeout") + " must be positive");
  const int64_t mp = params.get_int("max_pending_accepts");
  if (mp < 1 || mp > 65536) return InvalidArgument(name("max_pending_accepts") + " must be in 1..65536");
  c.max_pending_accepts = static_cast<int>(mp);
  c.checkpoint_timeout = params.get_double("checkpoint_timeout");
  if (!(c.checkpoint_timeout > 0)) return InvalidArgument(name("checkpoint_timeout") + " must be positive");
  return c;
}

StatusOr<TcpConfig> load_config(const ParamStore& params, const std::string& prefix) {
  return load_config(ParamReader(params, prefix));
}

TcpConfig default_config() {
  // The table's defaults pass load_config's checks (tcp_codec_test).
  return load_config(ParamReader(kTcpParams, "transport_tcp_")).value();
}

}  // namespace lz::transport::tcp
