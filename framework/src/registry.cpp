#include "lazarus/registry.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "lazarus/frameworks/coll.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/log.h"
#include "lazarus/strings.h"

extern char** environ;

namespace lz {
namespace {

struct FrameworkDef {
  const char* name;
  SelectKind kind;
  uint32_t version;
  const char* description;
  const char* select_help;
};

constexpr FrameworkDef kFrameworks[] = {
    {"cr", SelectKind::kSingle, cr::kInterfaceVersion, "checkpoint/restart back end",
     "Checkpoint/restart back end: one name to require it, '^name' to exclude; empty: highest priority usable"},
    {"crcp", SelectKind::kSingle, crcp::kInterfaceVersion, "checkpoint coordination protocol",
     "Checkpoint coordination protocol: one name to require it, '^name' to exclude; empty: highest priority usable"},
    {"transport", SelectKind::kMulti, transport::kInterfaceVersion, "point-to-point byte movers",
     "Transports to use: 'a,b' to use only these, '^a,b' to exclude these; empty: every usable one"},
    {"coll", SelectKind::kMulti, coll::kInterfaceVersion, "collective algorithms",
     "Collective components to use: 'a,b' to use only these, '^a,b' to exclude these; empty: every usable one"},
};

constexpr ParamSpec kRegistryParams[] = {
    {"component_path", ParamType::kList, "",
     "Directories searched for component plugins (*.so), ':' or ',' separated; the installed plugin "
     "directory is always searched last",
     3},
    {"log_level", ParamType::kEnum, "warn", "Diagnostics shown on stderr", 1, "error|warn|info|debug|trace"},
    // The cr framework's: what a restart does to the files a checkpointed
    // process held (lazarus/procfiles), for every back end.
    {"cr_files", ParamType::kEnum, "truncate",
     "What a restart does to each regular file a rank held open for writing at the checkpoint: truncate it to "
     "its size then (for logs and outputs a deterministic program writes again), copy (the snapshot keeps the "
     "file's contents, up to cr_files_copy_max, and puts them back: for files rewritten in place), or keep it as "
     "it is and report the change; files mapped shared and written are always copied, files only read are "
     "checked. Given to `lazarus restart`, keep leaves every file as it is",
     2, "truncate|copy|keep"},
    {"cr_incremental", ParamType::kEnum, "off",
     "Incremental snapshots: a rank's file leaves out the blocks that have not changed since its previous "
     "snapshot and refers to the older snapshot that holds them (which the store keeps while it is needed). "
     "Built for cr=app; cr=criu writes full images whatever this says",
     2, "off|on"},
    {"cr_full_every", ParamType::kInt, "8",
     "With cr_incremental on, snapshots 1, K+1, 2K+1, ... are written in full (and the first one after a "
     "restart), bounding the chain of older snapshots a restart reads",
     3},
    {"cr_files_copy_max", ParamType::kSize, "64M",
     "Largest file whose contents a snapshot keeps (cr_files=copy, files mapped shared); a larger one is "
     "truncated instead, as the snapshot's report says",
     3},
};

// The directory of the library holding this code (liblazarus.so or the executable).
std::string self_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&builtin_components), &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(info.dli_fname, ec);
  return ec ? std::string() : p.parent_path().string();
}

// Registers a component's priority parameter and its parameter table in `ps`.
Status register_params_of(ParamStore& ps, const ComponentDescriptor* d) {
  const std::string owner = std::string(d->framework) + "/" + d->name;
  const std::string prefix = std::string(d->framework) + "_" + d->name + "_";
  // Every component gets a priority parameter; its default is the descriptor's.
  char prio_default[16];
  std::snprintf(prio_default, sizeof prio_default, "%d", d->default_priority);
  ParamSpec prio{"priority", ParamType::kInt, prio_default, "Selection priority (higher wins)", 5};
  LZ_RETURN_IF_ERROR(ps.register_param(prefix + "priority", prio, owner));
  for (size_t i = 0; i < d->num_params; ++i)
    LZ_RETURN_IF_ERROR(ps.register_param(prefix + d->params[i].name, d->params[i], owner));
  return Status::Ok();
}

}  // namespace

uint32_t Registry::interface_version_of(const char* framework) {
  for (const auto& f : kFrameworks)
    if (std::strcmp(f.name, framework) == 0) return f.version;
  return 0;
}

Registry::Registry() {
  for (const auto& f : kFrameworks) {
    frameworks_.push_back(std::make_unique<Framework>(f.name, f.kind, f.version, f.description));
    // The selection parameter lives in the framework's static table; one entry each.
    ParamSpec spec{f.name, ParamType::kList, "", f.select_help, 1};
    params_.register_param(f.name, spec, std::string("framework ") + f.name).ignore();
  }
  for (const auto& p : kRegistryParams) params_.register_param(p.name, p, "framework").ignore();
  BuiltinList b = builtin_components();
  for (size_t i = 0; i < b.count; ++i) {
    Status s = add_component(b.items[i], "built-in");
    if (!s.ok()) log::error("%s", s.message().c_str());  // a build defect; keep going
  }
}

Framework* Registry::framework(const std::string& name) {
  for (auto& f : frameworks_)
    if (f->name() == name) return f.get();
  return nullptr;
}

Status Registry::register_params(const ParamSpec* specs, size_t n, const std::string& owner) {
  for (size_t i = 0; i < n; ++i)
    if (const Param* have = params_.find(specs[i].name); have == nullptr || have->owner != owner)
      LZ_RETURN_IF_ERROR(params_.register_param(specs[i].name, specs[i], owner));
  return Status::Ok();
}

Status Registry::register_component_params(const ComponentDescriptor* d) { return register_params_of(params_, d); }

Status Registry::add_component(const ComponentDescriptor* desc, const std::string& origin) {
  Framework* f = framework(desc->framework ? desc->framework : "");
  if (f == nullptr)
    return InvalidArgument(origin + ": component '" + (desc->name ? desc->name : "?") + "' names unknown framework '" +
                           (desc->framework ? desc->framework : "?") + "'");
  // Check everything before registering anything: a component left in its
  // framework without its parameters would abort in query() when it reads one.
  if (desc->name == nullptr) return InvalidArgument(origin + ": " + f->name() + " component without a name");
  if (f->find(desc->name) != nullptr) return f->add(desc, origin);  // refused as a duplicate, with its message
  ParamStore scratch;  // unparsable defaults, names repeated within the table
  if (Status s = register_params_of(scratch, desc); !s.ok()) return s.with_context(origin);
  for (const std::string& n : scratch.names())
    if (const Param* have = params_.find(n))
      return InvalidArgument(origin + ": parameter '" + n + "' of " + desc->framework + "/" + desc->name +
                             " is already registered by " + have->owner);
  LZ_RETURN_IF_ERROR(f->add(desc, origin));
  return register_component_params(desc);
}

std::string Registry::default_config_file() {
  std::string dir = self_dir();
  if (!dir.empty()) {
    std::string installed = dir + "/../share/lazarus/lazarus.yaml";
    if (access(installed.c_str(), R_OK) == 0) return installed;
  }
  return LZ_SOURCE_CONFIG_FILE;  // the source tree's config/lazarus.yaml (build-tree runs)
}

std::string Registry::user_config_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/lazarus/lazarus.yaml";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.config/lazarus/lazarus.yaml";
  return "";
}

std::string Registry::default_component_path() {
  std::string dir = self_dir();
  return dir.empty() ? std::string() : dir + "/lazarus";
}

void Registry::load_plugins() {
  std::vector<std::string> dirs;
  if (auto v = params_.peek("component_path"))
    for (auto& piece : str::split(*v, ','))
      for (auto& d : str::split(piece, ':')) dirs.push_back(d);
  if (std::string def = default_component_path(); !def.empty()) dirs.push_back(def);
  for (const auto& dir : dirs) {
    for (const auto& path : list_plugin_files(dir)) {
      bool seen = false;
      for (const auto& p : plugins_) seen |= p.path == path;
      if (seen) continue;
      auto loaded = load_plugin(path, &Registry::interface_version_of);
      if (!loaded.ok()) {
        log::warn("%s", loaded.status().message().c_str());
        plugin_problems_.push_back({path, loaded.status().message()});
        continue;
      }
      Status s = add_component(loaded->desc, path);
      if (!s.ok()) {
        log::warn("plugin %s refused: %s", path.c_str(), s.message().c_str());
        plugin_problems_.push_back({path, s.message()});
        continue;  // the handle stays open: the descriptor may be referenced by a partial registration
      }
      plugins_.push_back(*loaded);
    }
  }
}

Status Registry::configure(const ConfigOptions& options) {
  if (configured_) return Internal("Registry::configure called twice");
  configured_ = true;
  auto read_file = [&](const std::string& path, bool must_exist) -> Status {
    if (path.empty()) return Status::Ok();
    if (!must_exist && access(path.c_str(), F_OK) != 0) return Status::Ok();
    LZ_RETURN_IF_ERROR(params_.load_yaml_file(path));
    files_read_.push_back(path);
    return Status::Ok();
  };
  if (options.read_default_file)
    LZ_RETURN_IF_ERROR(read_file(options.default_file.empty() ? default_config_file() : options.default_file, false));
  if (options.read_user_file) LZ_RETURN_IF_ERROR(read_file(user_config_file(), false));
  for (const auto& f : options.config_files) LZ_RETURN_IF_ERROR(read_file(f, true));
  params_.load_environment(options.envp ? options.envp : environ);
  for (const auto& [k, v] : options.mca) params_.set(k, v, Source{SourceKind::kCommandLine, "--mca " + k});
  for (const auto& [k, v] : options.api) params_.set(k, v, Source{SourceKind::kApi, options.api_source});
  if (options.load_plugins) load_plugins();
  LZ_RETURN_IF_ERROR(params_.resolve(options.ignored));
  static const log::Level kLevels[] = {log::Level::kError, log::Level::kWarn, log::Level::kInfo, log::Level::kDebug,
                                       log::Level::kTrace};
  const std::string& lvl = params_.get_string("log_level");
  static const char* const kNames[] = {"error", "warn", "info", "debug", "trace"};
  for (int i = 0; i < 5; ++i)
    if (lvl == kNames[i] && params_.find("log_level")->source.kind != SourceKind::kDefault) log::set_level(kLevels[i]);
  // Selection parameters name components: check them now so a typo fails early.
  for (auto& f : frameworks_) {
    auto fl = f->filter(params_);
    if (fl.ok()) continue;
    if (options.ignored == nullptr) return fl.status();
    options.ignored->push_back(fl.status().message());
  }
  return Status::Ok();
}

QueryContext Registry::query_context(bool listing_only) const {
  QueryContext c;
  c.params = &params_;
  c.listing_only = listing_only;
  return c;
}

}  // namespace lz
