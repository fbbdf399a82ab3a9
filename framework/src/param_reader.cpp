#include "lazarus/param_reader.h"

#include <cstdlib>
#include <utility>

#include "lazarus/log.h"
#include "lazarus/param_store.h"

namespace lz {

ParamReader::ParamReader(const ParamStore& store, std::string prefix) : store_(&store), prefix_(std::move(prefix)) {}

ParamReader::ParamReader(std::span<const ParamSpec> table, std::string prefix)
    : table_(table), prefix_(std::move(prefix)) {}

// Parsed on every call: defaults are read once per config, never on a hot path.
ParamValue ParamReader::default_of(std::string_view name) const {
  for (const ParamSpec& spec : table_) {
    if (name != spec.name) continue;
    auto v = parse_param_value(spec, spec.default_value);
    if (!v.ok()) {
      log::error("parameter %s: default '%s' does not parse: %s", full_name(name).c_str(), spec.default_value,
                 v.status().message().c_str());
      std::abort();
    }
    return std::move(v).value();
  }
  log::error("parameter %s is not in its component's table", full_name(name).c_str());
  std::abort();
}

bool ParamReader::get_bool(std::string_view name) const {
  return store_ ? store_->get_bool(full_name(name)) : std::get<bool>(default_of(name));
}

int64_t ParamReader::get_int(std::string_view name) const {
  return store_ ? store_->get_int(full_name(name)) : std::get<int64_t>(default_of(name));
}

double ParamReader::get_double(std::string_view name) const {
  return store_ ? store_->get_double(full_name(name)) : std::get<double>(default_of(name));
}

std::string ParamReader::get_string(std::string_view name) const {
  return store_ ? store_->get_string(full_name(name)) : std::get<std::string>(default_of(name));
}

std::vector<std::string> ParamReader::get_list(std::string_view name) const {
  return store_ ? store_->get_list(full_name(name)) : std::get<std::vector<std::string>>(default_of(name));
}

}  // namespace lz
