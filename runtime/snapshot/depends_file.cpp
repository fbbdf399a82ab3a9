#include "snapshot/depends_file.h"

#include <charconv>
#include <string_view>

#include "snapshot/durable_io.h"
#include "snapshot/yaml_fields.h"

namespace lz::snapshot {

StatusOr<std::vector<uint64_t>> parse_depends_file(const std::string& text, const std::string& path) {
  std::vector<uint64_t> out;
  size_t start = 0, line = 1;
  for (; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    const std::string where = path + ":" + std::to_string(line) + ": ";
    if (end == std::string::npos) return DataLoss(where + "the last line has no newline: the file is truncated");
    std::string_view s = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (s.empty()) continue;
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || (s.size() > 1 && s[0] == '0'))
      return DataLoss(where + yaml_quote(s.substr(0, 40)) + (s.size() > 40 ? "..." : "") +
                      " is not a snapshot sequence number (decimal, without leading zeros, one per line)");
    out.push_back(v);
  }
  return out;
}

StatusOr<std::vector<uint64_t>> read_depends_file(const std::string& path) {
  LZ_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxDependsFileBytes));
  return parse_depends_file(text, path);
}

}  // namespace lz::snapshot
