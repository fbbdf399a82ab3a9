#include "snapshot/yaml_fields.h"

#include <charconv>
#include <cstdio>

namespace lz::snapshot {

std::string yaml_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

StatusOr<YAML::Node> yaml_load(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return DataLoss(path + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  } catch (const std::exception& e) {
    return DataLoss(path + ": malformed YAML: " + e.what());
  }
}

Status YamlFields::error(const YAML::Node& at, const std::string& what) const {
  int line = 0;
  try {
    if (at.IsDefined()) line = at.Mark().line + 1;
  } catch (...) {
  }
  if (line > 0) return DataLoss(path_ + ":" + std::to_string(line) + ": " + what);
  return DataLoss(path_ + ": " + what);
}

Status YamlFields::require_map(const YAML::Node& n, const std::string& what) const {
  if (!n.IsMap()) return error(n, what + " is not a mapping");
  return Status::Ok();
}

Status YamlFields::require_seq(const YAML::Node& n, const std::string& what) const {
  if (!n.IsSequence()) return error(n, what + " is not a list");
  return Status::Ok();
}

StatusOr<YAML::Node> YamlFields::field(const YAML::Node& m, const char* key) const {
  if (!m.IsMap()) return error(m, std::string("expected a mapping holding '") + key + "'");
  try {
    YAML::Node n = m[key];
    if (!n.IsDefined() || n.IsNull()) return error(m, std::string("field '") + key + "' is missing");
    return n;
  } catch (const YAML::Exception& e) {
    return error(m, std::string("field '") + key + "': " + e.msg);
  }
}

StatusOr<std::string> YamlFields::scalar(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) return error(n, what + " is not a scalar");
  return n.Scalar();
}

StatusOr<std::string> YamlFields::str(const YAML::Node& m, const char* key) const {
  LZ_ASSIGN_OR_RETURN(YAML::Node n, field(m, key));
  return scalar(n, std::string("field '") + key + "'");
}

StatusOr<uint64_t> YamlFields::u64(const YAML::Node& m, const char* key) const {
  LZ_ASSIGN_OR_RETURN(YAML::Node n, field(m, key));
  LZ_ASSIGN_OR_RETURN(std::string s, scalar(n, std::string("field '") + key + "'"));
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    return error(n, std::string("field '") + key + "' is not an unsigned integer: '" + s + "'");
  return v;
}

StatusOr<int64_t> YamlFields::i64(const YAML::Node& m, const char* key) const {
  LZ_ASSIGN_OR_RETURN(YAML::Node n, field(m, key));
  LZ_ASSIGN_OR_RETURN(std::string s, scalar(n, std::string("field '") + key + "'"));
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    return error(n, std::string("field '") + key + "' is not an integer: '" + s + "'");
  return v;
}

StatusOr<std::vector<std::string>> YamlFields::str_list(const YAML::Node& m, const char* key, bool optional) const {
  if (optional && m.IsMap()) {
    YAML::Node probe;
    try {
      probe = m[key];
    } catch (const YAML::Exception&) {
    }
    if (!probe.IsDefined() || probe.IsNull()) return std::vector<std::string>{};
  }
  LZ_ASSIGN_OR_RETURN(YAML::Node n, field(m, key));
  LZ_RETURN_IF_ERROR(require_seq(n, std::string("field '") + key + "'"));
  std::vector<std::string> out;
  for (const auto& item : n) {
    LZ_ASSIGN_OR_RETURN(std::string s, scalar(item, std::string("an item of '") + key + "'"));
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<std::vector<uint64_t>> YamlFields::u64_list(const YAML::Node& m, const char* key, bool optional) const {
  LZ_ASSIGN_OR_RETURN(std::vector<std::string> items, str_list(m, key, optional));
  std::vector<uint64_t> out;
  out.reserve(items.size());
  for (const std::string& s : items) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
      return error(m[key], std::string("an item of '") + key + "' is not an unsigned integer: '" + s + "'");
    out.push_back(v);
  }
  return out;
}

StatusOr<std::vector<std::pair<std::string, std::string>>> YamlFields::str_map(const YAML::Node& m, const char* key,
                                                                               bool optional) const {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  if (optional && m.IsMap()) {
    YAML::Node probe;
    try {
      probe = m[key];
    } catch (const YAML::Exception&) {
    }
    if (!probe.IsDefined() || probe.IsNull()) return Pairs{};
  }
  LZ_ASSIGN_OR_RETURN(YAML::Node n, field(m, key));
  LZ_RETURN_IF_ERROR(require_map(n, std::string("field '") + key + "'"));
  Pairs out;
  for (const auto& kv : n) {
    LZ_ASSIGN_OR_RETURN(std::string k, scalar(kv.first, std::string("a key of '") + key + "'"));
    LZ_ASSIGN_OR_RETURN(std::string v, scalar(kv.second, std::string("the value of '") + k + "'"));
    out.emplace_back(std::move(k), std::move(v));
  }
  return out;
}

}  // namespace lz::snapshot
