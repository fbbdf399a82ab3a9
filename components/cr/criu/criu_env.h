// The environment every criu that Lazarus starts gets on top of its own.
//
// CRIU stops a dumped process's parasite (and a restored one's restorer) on
// its last system call with a hardware breakpoint, and waits for the trap.
// Where the hypervisor does not deliver debug-register traps, that wait never
// ends: seen on a Firecracker VM with kernel 6.18, where every dump hung at
// "Can't stop daemon in parasite" (even `criu dump` of `sleep` by hand) until
// something killed it. CRIU_FAULT=130 (FI_NO_BREAKPOINTS, one of CRIU's
// "not fatal" fault settings) makes it use its own fallback for machines
// without breakpoints, PTRACE_SYSCALL, which stops at each system call of
// those few instructions instead: the same dump, a few more ptrace stops.
// A CRIU_FAULT the user set is left as it is.
//
//   std::vector<std::string> env = criu_environment();   // "NAME=value" entries
#pragma once

#include <string>
#include <vector>

namespace lz::cr::criu {

std::vector<std::string> criu_environment();

}  // namespace lz::cr::criu
