// YamlFields: strict, bounded reading of the store's YAML files (COMMITTED,
// manifest.yaml) and the quoting used to write them.
//
// These files are read back after crashes, disk errors and hand edits, and by
// `lazarus restart` from whatever directory the user names, so nothing in them
// is trusted: every field is checked for presence, node type and range, and
// every problem becomes a kDataLoss error "<file>:<line>: <what is wrong>"
// instead of an exception or a crash. yaml-cpp exceptions never leave here.
//
//   LZ_ASSIGN_OR_RETURN(YAML::Node root, lz::snapshot::yaml_load(text, path));
//   lz::snapshot::YamlFields f(path);
//   LZ_ASSIGN_OR_RETURN(uint64_t seq, f.u64(root, "seq"));
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::snapshot {

// A double-quoted YAML scalar for any byte string (quotes, backslashes and
// control characters escaped).
std::string yaml_quote(std::string_view s);

// Parses `text`; a syntax error names `path` and the line.
StatusOr<YAML::Node> yaml_load(const std::string& text, const std::string& path);

class YamlFields {
 public:
  explicit YamlFields(std::string path) : path_(std::move(path)) {}

  // "<path>:<line>: <what>" as kDataLoss (line of `at`, 1-based).
  Status error(const YAML::Node& at, const std::string& what) const;
  Status require_map(const YAML::Node& n, const std::string& what) const;
  Status require_seq(const YAML::Node& n, const std::string& what) const;

  // A field of map `m`. Missing fields and wrong types are errors.
  StatusOr<YAML::Node> field(const YAML::Node& m, const char* key) const;
  StatusOr<std::string> str(const YAML::Node& m, const char* key) const;
  StatusOr<uint64_t> u64(const YAML::Node& m, const char* key) const;
  StatusOr<int64_t> i64(const YAML::Node& m, const char* key) const;
  // A sequence of scalars; an absent key gives an empty list when `optional`.
  StatusOr<std::vector<std::string>> str_list(const YAML::Node& m, const char* key, bool optional) const;
  // A sequence of unsigned integers ("depends: [3, 5]"); an absent key gives
  // an empty list when `optional`.
  StatusOr<std::vector<uint64_t>> u64_list(const YAML::Node& m, const char* key, bool optional) const;
  // A mapping of scalars to scalars, in file order.
  StatusOr<std::vector<std::pair<std::string, std::string>>> str_map(const YAML::Node& m, const char* key,
                                                                     bool optional) const;
  // Scalar text of `n` (error unless a scalar).
  StatusOr<std::string> scalar(const YAML::Node& n, const std::string& what) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace lz::snapshot
