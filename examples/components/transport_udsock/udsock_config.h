// Reading transport/udsock's parameters (one table for both descriptors).
#pragma once

#include "lazarus/component.h"
#include "lazarus/param_store.h"
#include "udsock_transport.h"

namespace udsock {

inline constexpr lz::ParamSpec kParams[] = {
    {"max_frame", lz::ParamType::kSize, "256k", "Largest frame, header included", 5},
    {"eager_limit", lz::ParamType::kSize, "64k", "Messages up to this size go eagerly", 5},
    {"connect_timeout", lz::ParamType::kInt, "60", "Seconds connect() waits for the peers' handshakes", 6},
};

inline Config load_config(const lz::QueryContext& ctx) {
  Config c;
  c.max_frame = static_cast<size_t>(ctx.params->get_int(ctx.param_prefix + "max_frame"));
  c.eager_limit = static_cast<size_t>(ctx.params->get_int(ctx.param_prefix + "eager_limit"));
  c.connect_timeout_s = static_cast<int>(ctx.params->get_int(ctx.param_prefix + "connect_timeout"));
  return c;
}

}  // namespace udsock
