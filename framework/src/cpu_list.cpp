#include "lazarus/cpu_list.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace lz {

std::vector<int> own_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  if (out.empty()) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int c = 0; c < std::max(1L, n); ++c) out.push_back(c);
  }
  return out;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

StatusOr<std::vector<int>> parse_cpu_list(std::string_view text) {
  auto bad = [&](std::string_view part) {
    return InvalidArgument("CPU list '" + std::string(text) + "': '" + std::string(part) +
                           "' is not a CPU number or a range a-b (expected e.g. 0-3,8)");
  };
  auto number = [](std::string_view s, int* v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size() && *v >= 0 && *v < CPU_SETSIZE;
  };
  std::set<int> cpus;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view part = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t dash = part.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!number(part, &lo)) return bad(part);
      hi = lo;
    } else if (!number(part.substr(0, dash), &lo) || !number(part.substr(dash + 1), &hi) || hi < lo) {
      return bad(part);
    }
    for (int c = lo; c <= hi; ++c) cpus.insert(c);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

}  // namespace lz
