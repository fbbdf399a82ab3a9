// Typed parameters ("MCA variables"): their declaration and value parsing.
//
// A component declares its parameters in one constant table; registering the
// table allocates nothing in the component (the ParamStore copies what it
// needs). Full names are `<framework>_<component>_<name>`; framework-level
// parameters (`cr`, `transport`, `component_path`, ...) have no prefix.
//
//   static constexpr lz::ParamSpec kParams[] = {
//       {"eager_limit", lz::ParamType::kSize, "64k", "Largest message sent eagerly", 5},
//       {"if_include", lz::ParamType::kList, "", "Interfaces to use (empty: all)", 2},
//   };
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lazarus/status.h"

namespace lz {

enum class ParamType : int { kBool, kInt, kSize, kDouble, kString, kEnum, kList };

const char* param_type_name(ParamType t) noexcept;

// Levels follow Open MPI's: 1-3 end user, 4-6 tuner, 7-9 developer.
struct ParamSpec {
  const char* name;           // short name within the owner (full name for framework-level ones)
  ParamType type;
  const char* default_value;  // text, parsed with `type`; "" allowed for string/list
  const char* help;
  int level = 1;
  const char* choices = nullptr;  // kEnum: "a|b|c"
};

// bool; int and size (bytes) as int64; double; string and enum as string; list.
using ParamValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

// Parses `text` as a value of `spec`'s type. Errors name the offending text and
// what was expected (the caller adds the parameter name and the source).
StatusOr<ParamValue> parse_param_value(const ParamSpec& spec, std::string_view text);
// Canonical text of a value (sizes with the largest exact suffix, lists comma-joined).
std::string format_param_value(ParamType type, const ParamValue& v);
// "64k" -> 65536; binary suffixes k/K, m/M, g/G, t/T, optional trailing 'b'/'B'/"iB".
StatusOr<int64_t> parse_size(std::string_view text);

}  // namespace lz
