#include "bootstrap/pmi2_wire.h"

#include <cstdio>
#include <cstdlib>

namespace lz::rt::pmi2 {

std::string command(std::string_view name, const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string body = "cmd=" + std::string(name) + ";";
  for (const auto& [k, v] : pairs) body += k + "=" + v + ";";
  char len[8];
  std::snprintf(len, sizeof len, "%-6zu", body.size());
  return std::string(len, 6) + body;
}

StatusOr<std::map<std::string, std::string>> parse(std::string_view body) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at < body.size()) {
    const size_t end = body.find(';', at);
    const size_t eq = body.find('=', at);
    if (end == std::string_view::npos || eq == std::string_view::npos || eq > end)
      return DataLoss("PMI-2: a reply that is not key=value; pairs: '" + std::string(body) + "'");
    out[std::string(body.substr(at, eq - at))] = std::string(body.substr(eq + 1, end - eq - 1));
    at = end + 1;
  }
  return out;
}

StatusOr<std::vector<int>> node_of_rank(std::string_view mapping, int size) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("PMI_process_mapping '" + std::string(mapping) + "': " + why);
  };
  const std::string_view head = "(vector,";
  if (mapping.substr(0, head.size()) != head || mapping.empty() || mapping.back() != ')')
    return bad("not (vector,(start,nodes,ranks per node),...)");
  std::vector<int> nodes;
  std::string rest(mapping.substr(head.size(), mapping.size() - head.size() - 1));
  const char* p = rest.c_str();
  while (*p != '\0') {
    int start = 0, count = 0, per = 0, used = 0;
    if (std::sscanf(p, "(%d,%d,%d)%n", &start, &count, &per, &used) != 3 || start < 0 || count <= 0 || per <= 0)
      return bad("a block is not (start,nodes,ranks per node)");
    for (int n = 0; n < count; ++n)
      for (int r = 0; r < per; ++r) nodes.push_back(start + n);
    if (static_cast<int>(nodes.size()) > size) return bad("more ranks than the job's " + std::to_string(size));
    p += used;
    if (*p == ',') ++p;
  }
  // Block placement wraps around the nodes when ranks remain (srun -m cyclic
  // maps every node's share in turn): repeat the pattern.
  if (nodes.empty()) return bad("no block");
  for (size_t i = 0; static_cast<int>(nodes.size()) < size; ++i) nodes.push_back(nodes[i]);
  return nodes;
}

std::string to_hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

StatusOr<std::string> from_hex(std::string_view hex) {
  auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return DataLoss("PMI-2: a value of odd hex length " + std::to_string(hex.size()));
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return DataLoss("PMI-2: a value that is not hex at byte " + std::to_string(2 * i));
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

}  // namespace lz::rt::pmi2
