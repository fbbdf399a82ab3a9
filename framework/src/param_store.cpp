#include "lazarus/param_store.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lazarus/log.h"
#include "lazarus/strings.h"

namespace lz {

const char* source_kind_name(SourceKind k) noexcept {
  switch (k) {
    case SourceKind::kDefault: return "default";
    case SourceKind::kFile: return "file";
    case SourceKind::kEnv: return "environment";
    case SourceKind::kCommandLine: return "command line";
    case SourceKind::kApi: return "api";
  }
  return "?";
}

std::string Source::describe() const {
  switch (kind) {
    case SourceKind::kDefault: return "default";
    case SourceKind::kFile: return "set in " + where;
    case SourceKind::kEnv: return "set by environment variable " + where;
    case SourceKind::kCommandLine: return "set by " + where + " on the command line";
    case SourceKind::kApi: return "set by " + where;
  }
  return where;
}

Status ParamStore::register_param(const std::string& full_name, const ParamSpec& spec,
                                  const std::string& owner) {
  if (full_name.empty()) return InvalidArgument("parameter with an empty name registered by " + owner);
  if (auto it = params_.find(full_name); it != params_.end())
    return InvalidArgument("parameter '" + full_name + "' registered twice (by " + it->second.owner + " and " +
                           owner + ")");
  auto v = parse_param_value(spec, spec.default_value ? spec.default_value : "");
  if (!v.ok())
    return Internal("default of parameter '" + full_name + "' (" + owner + "): " + v.status().message());
  std::string def = format_param_value(spec.type, *v);
  ParamSpec kept = spec;
  kept.default_value = nullptr;  // may point at caller storage; default_text keeps it
  params_.emplace(full_name, Param{full_name, kept, owner, std::move(def), std::move(v).value(),
                                   Source{SourceKind::kDefault, "default"}});
  return Status::Ok();
}

void ParamStore::set(const std::string& name, const std::string& value, Source source) {
  settings_.push_back(Setting{name, value, std::move(source), settings_.size()});
}

namespace {

// Flattens a YAML node into name/value settings.
Status flatten(const YAML::Node& node, const std::string& prefix, const std::string& file,
               std::vector<std::tuple<std::string, std::string, int>>& out) {
  auto line_of = [](const YAML::Node& n) { return n.Mark().line + 1; };
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())
        return InvalidArgument(file + ":" + std::to_string(line_of(kv.first)) + ": parameter names must be plain words");
      std::string key = kv.first.as<std::string>();
      std::string full = prefix.empty() ? key : prefix + "_" + key;
      LZ_RETURN_IF_ERROR(flatten(kv.second, full, file, out));
    }
    return Status::Ok();
  }
  if (prefix.empty()) return InvalidArgument(file + ": expected a mapping of parameter names to values");
  if (node.IsScalar()) {
    out.emplace_back(prefix, node.as<std::string>(), line_of(node));
    return Status::Ok();
  }
  if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const auto& item : node) {
      if (!item.IsScalar())
        return InvalidArgument(file + ":" + std::to_string(line_of(item)) + ": list '" + prefix +
                               "' may hold only plain values");
      items.push_back(item.as<std::string>());
    }
    out.emplace_back(prefix, str::join(items, ","), line_of(node));
    return Status::Ok();
  }
  if (node.IsNull()) {
    out.emplace_back(prefix, "", line_of(node));
    return Status::Ok();
  }
  return InvalidArgument(file + ": unsupported value for '" + prefix + "'");
}

}  // namespace

Status ParamStore::load_yaml_string(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(origin + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                           ": malformed YAML: " + e.msg);
  }
  if (root.IsNull()) return Status::Ok();  // empty or all comments
  std::vector<std::tuple<std::string, std::string, int>> entries;
  LZ_RETURN_IF_ERROR(flatten(root, "", origin, entries));
  for (auto& [name, value, line] : entries) set(name, value, Source{SourceKind::kFile, origin + ":" + std::to_string(line)});
  return Status::Ok();
}

Status ParamStore::load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return ErrnoError("cannot read configuration file " + path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  return load_yaml_string(ss.str(), path);
}

void ParamStore::load_environment(char** envp) {
  if (envp == nullptr) return;
  const size_t plen = std::strlen(kEnvPrefix);
  for (char** e = envp; *e != nullptr; ++e) {
    if (std::strncmp(*e, kEnvPrefix, plen) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    if (eq == nullptr) continue;
    std::string name(*e + plen, static_cast<size_t>(eq - (*e + plen)));
    set(name, eq + 1, Source{SourceKind::kEnv, std::string(kEnvPrefix) + name});
  }
}

std::optional<std::string> ParamStore::peek(const std::string& name) const {
  const Setting* best = nullptr;
  for (const auto& s : settings_) {
    if (s.name != name) continue;
    if (best == nullptr || s.source.kind >= best->source.kind) best = &s;
  }
  if (best) return best->value;
  return std::nullopt;
}

Status ParamStore::resolve() { return resolve(nullptr); }

Status ParamStore::resolve(std::vector<std::string>* unknown) {
  // Stable by (precedence, order added): later and stronger settings win.
  std::vector<const Setting*> order;
  for (const auto& s : settings_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const Setting* a, const Setting* b) { return a->source.kind < b->source.kind; });
  std::vector<std::string> problems;
  const std::vector<std::string> known = names();
  for (const Setting* s : order) {
    auto it = params_.find(s->name);
    if (it == params_.end()) {
      if (unknown != nullptr) {
        unknown->push_back("'" + s->name + "' (" + s->source.describe() + ")");
        continue;
      }
      problems.push_back("unknown parameter '" + s->name + "' (" + s->source.describe() + ")" +
                         str::did_you_mean(s->name, known) +
                         "; `lazarus info --param all all` lists every parameter");
      continue;
    }
    auto v = parse_param_value(it->second.spec, s->value);
    if (!v.ok()) {
      problems.push_back("parameter '" + s->name + "' (" + s->source.describe() + "): " + v.status().message() +
                         " [type " + param_type_name(it->second.spec.type) + "]");
      continue;
    }
    it->second.value = std::move(v).value();
    it->second.source = s->source;
  }
  settings_.clear();
  if (!problems.empty()) return InvalidArgument(str::join(problems, "\n"));
  return Status::Ok();
}

const Param* ParamStore::find(const std::string& name) const {
  auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

const Param& ParamStore::must_find(const std::string& name) const {
  auto it = params_.find(name);
  if (it == params_.end()) {
    log::error("internal: parameter '%s' read but never registered", name.c_str());
    std::abort();
  }
  return it->second;
}

std::vector<const Param*> ParamStore::all() const {
  std::vector<const Param*> out;
  for (const auto& [_, p] : params_) out.push_back(&p);
  return out;
}

std::vector<std::string> ParamStore::names() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : params_) out.push_back(n);
  return out;
}

bool ParamStore::get_bool(const std::string& name) const { return std::get<bool>(must_find(name).value); }
int64_t ParamStore::get_int(const std::string& name) const { return std::get<int64_t>(must_find(name).value); }
double ParamStore::get_double(const std::string& name) const { return std::get<double>(must_find(name).value); }
const std::string& ParamStore::get_string(const std::string& name) const {
  return std::get<std::string>(must_find(name).value);
}
const std::vector<std::string>& ParamStore::get_list(const std::string& name) const {
  return std::get<std::vector<std::string>>(must_find(name).value);
}

}  // namespace lz
