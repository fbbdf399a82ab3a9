// The modex entry of a ucx rank: "<pid>:<hex of the packed UCP worker
// address>". The pid lets ranks of the same host watch each other through
// pidfds (ucx_liveness.cpp); the worker address is what ucp_ep_create needs.
#pragma once

#include <sys/types.h>

#include <string>

#include "lazarus/status.h"

namespace lz::transport::ucx {

struct UcxAddress {
  pid_t pid = 0;
  std::string worker;  // binary
};

std::string encode_address(const UcxAddress& a);
// Errors say what is wrong with the text (the caller names the rank).
StatusOr<UcxAddress> decode_address(const std::string& text);

}  // namespace lz::transport::ucx
