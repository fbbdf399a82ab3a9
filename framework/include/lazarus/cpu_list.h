// CPU lists: the CPUs a process may run on, in the kernel's list format
// ("0-3,8,10-11", as in /proc/<pid>/status Cpus_allowed_list). The launcher
// binds ranks with them (launcher/binding.h); the p2p engine exchanges them
// to decide whether a waiting rank yields (p2p/cpu_sharing.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz {

// The CPUs this process may run on (sched_getaffinity), ascending; all online
// CPUs if the mask cannot be read.
std::vector<int> own_cpus();

std::string format_cpu_list(const std::vector<int>& cpus);
// Parses that format into ascending CPU numbers without duplicates;
// kInvalidArgument names the text and the bad part.
StatusOr<std::vector<int>> parse_cpu_list(std::string_view text);

}  // namespace lz
