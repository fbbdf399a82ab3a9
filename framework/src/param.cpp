#include "lazarus/param.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "lazarus/strings.h"

namespace lz {

const char* param_type_name(ParamType t) noexcept {
  switch (t) {
    case ParamType::kBool: return "bool";
    case ParamType::kInt: return "int";
    case ParamType::kSize: return "size";
    case ParamType::kDouble: return "double";
    case ParamType::kString: return "string";
    case ParamType::kEnum: return "enum";
    case ParamType::kList: return "list";
  }
  return "?";
}

namespace {

StatusOr<int64_t> parse_int(std::string_view text) {
  std::string s(str::trim(text));
  if (s.empty()) return InvalidArgument("empty value, expected an integer");
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno == ERANGE) return InvalidArgument("'" + s + "' is out of range for an integer");
  if (end == s.c_str() || *end != '\0') return InvalidArgument("'" + s + "' is not an integer");
  return static_cast<int64_t>(v);
}

StatusOr<bool> parse_bool(std::string_view text) {
  std::string s = str::to_lower(str::trim(text));
  if (s == "1" || s == "true" || s == "yes" || s == "on" || s == "enabled") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off" || s == "disabled") return false;
  return InvalidArgument("'" + std::string(text) + "' is not a boolean (use true/false, yes/no, on/off, 1/0)");
}

StatusOr<double> parse_double(std::string_view text) {
  std::string s(str::trim(text));
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    return InvalidArgument("'" + s + "' is not a finite number");
  return v;
}

}  // namespace

StatusOr<int64_t> parse_size(std::string_view text) {
  std::string s(str::trim(text));
  if (s.empty()) return InvalidArgument("empty value, expected a size such as 4096, 64k, 16M or 1G");
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])))) ++i;
  if (i == 0) return InvalidArgument("'" + s + "' is not a size (expected a number with an optional k, M, G or T suffix)");
  std::string digits = s.substr(0, i);
  std::string suffix = str::to_lower(str::trim(std::string_view(s).substr(i)));
  int shift = 0;
  if (suffix.empty() || suffix == "b") shift = 0;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib") shift = 10;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib") shift = 20;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib") shift = 30;
  else if (suffix == "t" || suffix == "tb" || suffix == "tib") shift = 40;
  else return InvalidArgument("'" + s + "' has an unknown size suffix '" + suffix + "' (use k, M, G or T)");
  errno = 0;
  unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
  if (errno == ERANGE || v > (static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) >> shift))
    return InvalidArgument("'" + s + "' is too large for a size");
  return static_cast<int64_t>(v << shift);
}

StatusOr<ParamValue> parse_param_value(const ParamSpec& spec, std::string_view text) {
  switch (spec.type) {
    case ParamType::kBool: {
      auto v = parse_bool(text);
      if (!v.ok()) return v.status();
      return ParamValue(*v);
    }
    case ParamType::kInt: {
      auto v = parse_int(text);
      if (!v.ok()) return v.status();
      return ParamValue(*v);
    }
    case ParamType::kSize: {
      auto v = parse_size(text);
      if (!v.ok()) return v.status();
      return ParamValue(*v);
    }
    case ParamType::kDouble: {
      auto v = parse_double(text);
      if (!v.ok()) return v.status();
      return ParamValue(*v);
    }
    case ParamType::kString:
      return ParamValue(std::string(str::trim(text)));
    case ParamType::kEnum: {
      std::string s(str::trim(text));
      std::vector<std::string> choices = str::split(spec.choices ? spec.choices : "", '|');
      for (const auto& c : choices)
        if (c == s) return ParamValue(s);
      return InvalidArgument("'" + s + "' is not one of " + str::join(choices, ", ") +
                             str::did_you_mean(s, choices));
    }
    case ParamType::kList:
      return ParamValue(str::split(text, ','));
  }
  return Internal("unknown parameter type");
}

std::string format_param_value(ParamType type, const ParamValue& v) {
  switch (type) {
    case ParamType::kBool: return std::get<bool>(v) ? "true" : "false";
    case ParamType::kInt: return std::to_string(std::get<int64_t>(v));
    case ParamType::kSize: {
      int64_t b = std::get<int64_t>(v);
      static const char* const kSuffix[] = {"", "k", "M", "G", "T"};
      int i = 0;
      while (i < 4 && b != 0 && (b & 1023) == 0) {
        b >>= 10;
        ++i;
      }
      return std::to_string(b) + kSuffix[i];
    }
    case ParamType::kDouble: {
      // Shortest text that parses back to the same double ("%g" kept only 6
      // digits, so 1/3 came back as 0.333333).
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(v));
      return std::string(buf, r.ptr);
    }
    case ParamType::kString:
    case ParamType::kEnum: return std::get<std::string>(v);
    case ParamType::kList: return str::join(std::get<std::vector<std::string>>(v), ",");
  }
  return "?";
}

}  // namespace lz
