#include "info_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common_options.h"
#include "cr/runtime_params.h"
#include "lazarus/companion_library.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/registry.h"
#include "lazarus/strings.h"
#include "parameter_reference.h"

namespace lz::cli {
namespace {

struct InfoOptions {
  CommonOptions common;
  std::vector<std::string> param;  // {framework, component|all}
  bool json = false;
  bool markdown = false;
};

std::string caps_text(const std::string& fw, uint64_t caps) {
  if (fw == "transport") return transport::capability_names(caps);
  if (fw == "cr") return cr::capability_names(caps);
  if (fw == "crcp") return crcp::capability_names(caps);
  return caps ? std::to_string(caps) : "none";
}

// How a rank joins its job: chosen by each rank from its environment
// (runtime/bootstrap/bootstrap.cpp), or named by the parameter bootstrap.
void print_bootstraps() {
  const std::string pmix = lazarus_library_dir() + "/liblazarus_pmix.so";
  const bool have_pmix = access(pmix.c_str(), R_OK) == 0;
  std::printf(
      "\nBootstrap (how a rank joins its job; each rank takes the first its environment names, "
      "or the one parameter bootstrap names):\n");
  std::printf("  oob        lazarus run / mpirun (LZ_OOB_ADDR): checkpoint/restart, spawn, migration\n");
  std::printf("  pmix       a PMIx server (PMIX_NAMESPACE): srun --mpi=pmix, Open MPI's mpirun; %s\n",
              have_pmix ? ("in " + pmix).c_str() : "not built (install libpmix-dev and rebuild)");
  std::printf("  pmi2       a PMI-2 manager (PMI_FD): srun --mpi=pmi2, MPICH's mpiexec\n");
  std::printf("  singleton  none of these: a job of one rank\n");
}

// Does parameter `p` belong to the --param filter?
bool param_matches(const Param& p, const std::vector<std::string>& filter) {
  if (filter.empty()) return true;
  const std::string& fw = filter[0];
  const std::string comp = filter.size() > 1 ? filter[1] : "all";
  if (fw == "all") return true;
  if (p.owner == "framework " + fw) return true;  // the selection parameter
  if (p.owner.rfind(fw + "/", 0) != 0) return false;
  return comp == "all" || p.owner == fw + "/" + comp;
}

Status check_filter(Registry& reg, const std::vector<std::string>& filter) {
  if (filter.empty() || filter[0] == "all") return Status::Ok();
  Framework* f = reg.framework(filter[0]);
  if (f == nullptr) {
    std::vector<std::string> names;
    for (auto& fw : reg.frameworks()) names.push_back(fw->name());
    return InvalidArgument("--param: unknown framework '" + filter[0] + "'" + str::did_you_mean(filter[0], names) +
                           "; frameworks: " + str::join(names, ", ") + ", all");
  }
  if (filter.size() > 1 && filter[1] != "all" && f->find(filter[1]) == nullptr)
    return InvalidArgument("--param: framework " + filter[0] + " has no component '" + filter[1] + "'" +
                           str::did_you_mean(filter[1], f->component_names()) +
                           "; components: " + str::join(f->component_names(), ", ") + ", all");
  return Status::Ok();
}

struct FrameworkReport {
  Framework* fw;
  std::vector<QueryResult> results;
  std::vector<std::string> selected;
  Status selection;
};

int run_info(const InfoOptions& opt) {
  if (opt.markdown) {
    Status s = print_parameter_reference(std::cout);
    if (!s.ok()) print_error(s);
    return s.ok() ? 0 : 2;
  }
  Registry reg;
  Status s = rt::register_runtime_params(reg);
  if (s.ok()) s = reg.configure(opt.common.config());
  if (!s.ok()) {
    print_error(s);
    return 2;
  }
  s = check_filter(reg, opt.param);
  if (!s.ok()) {
    print_error(s);
    return 2;
  }
  std::vector<FrameworkReport> reports;
  bool selection_failed = false;
  for (auto& fw : reg.frameworks()) {
    FrameworkReport r{fw.get(), fw->query_all(reg.query_context(true)), {}, Status::Ok()};
    auto sel = fw->select(reg.query_context(true));
    if (sel.ok()) {
      for (auto& q : *sel) r.selected.emplace_back(q.entry->desc->name);
    } else {
      r.selection = sel.status();
      // No usable component in a multi-select framework is not an error of the
      // user's making; an explicit request that cannot be met is.
      const Param* p = reg.params().find(fw->name());
      if (p && !std::get<std::vector<std::string>>(p->value).empty()) selection_failed = true;
    }
    reports.push_back(std::move(r));
  }
  std::vector<const Param*> params;
  for (const Param* p : reg.params().all())
    if (param_matches(*p, opt.param)) params.push_back(p);
  const bool show_components = opt.param.empty();

  if (opt.json) {
    nlohmann::ordered_json j;
    j["version"] = LZ_VERSION;
    j["config_files"] = reg.files_read();
    j["plugins"] = nlohmann::json::array();
    for (const auto& p : reg.plugins())
      j["plugins"].push_back({{"path", p.path}, {"framework", p.desc->framework}, {"component", p.desc->name}});
    j["plugin_problems"] = nlohmann::json::array();
    for (const auto& p : reg.plugin_problems()) j["plugin_problems"].push_back({{"path", p.path}, {"message", p.message}});
    if (show_components) {
      j["frameworks"] = nlohmann::json::array();
      for (const auto& r : reports) {
        nlohmann::ordered_json f;
        f["name"] = r.fw->name();
        f["description"] = r.fw->description();
        f["select"] = r.fw->kind() == SelectKind::kSingle ? "single" : "multi";
        f["interface_version"] = r.fw->interface_version();
        f["selected"] = r.selected;
        if (!r.selection.ok()) f["selection_error"] = r.selection.message();
        f["components"] = nlohmann::json::array();
        for (const auto& q : r.results) {
          const auto* d = q.entry->desc;
          nlohmann::ordered_json c;
          c["name"] = d->name;
          c["version"] = d->version;
          c["description"] = d->description;
          c["origin"] = q.entry->origin;
          c["priority"] = q.priority;
          c["available"] = static_cast<bool>(q.module);
          c["excluded"] = q.excluded;
          if (q.module) c["capabilities"] = caps_text(r.fw->name(), q.module->capabilities());
          else c["reason"] = q.declined.message();
          if (!q.details.empty()) c["details"] = q.details;
          f["components"].push_back(std::move(c));
        }
        j["frameworks"].push_back(std::move(f));
      }
    }
    j["parameters"] = nlohmann::json::array();
    for (const Param* p : params) {
      nlohmann::ordered_json e;
      e["name"] = p->name;
      e["type"] = param_type_name(p->spec.type);
      e["value"] = format_param_value(p->spec.type, p->value);
      e["default"] = p->default_text;
      e["source"] = source_kind_name(p->source.kind);
      e["where"] = p->source.where;
      e["owner"] = p->owner;
      e["level"] = p->spec.level;
      if (p->spec.choices) e["choices"] = str::split(p->spec.choices, '|');
      e["help"] = p->spec.help ? p->spec.help : "";
      j["parameters"].push_back(std::move(e));
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("Lazarus %s\n", LZ_VERSION);
    std::printf("Configuration files read: %s\n",
                reg.files_read().empty() ? "none" : str::join(reg.files_read(), ", ").c_str());
    for (const auto& p : reg.plugins())
      std::printf("Plugin: %s (%s/%s)\n", p.path.c_str(), p.desc->framework, p.desc->name);
    for (const auto& p : reg.plugin_problems())
      std::printf("Plugin refused: %s\n", p.message.c_str());
    if (show_components) {
      for (const auto& r : reports) {
        std::printf("\nFramework %s (%s-select, interface v%u): %s\n", r.fw->name().c_str(),
                    r.fw->kind() == SelectKind::kSingle ? "single" : "multi", r.fw->interface_version(),
                    r.fw->description().c_str());
        if (r.results.empty()) std::printf("  (no components)\n");
        for (const auto& q : r.results) {
          const auto* d = q.entry->desc;
          std::string state = q.module ? "available [" + caps_text(r.fw->name(), q.module->capabilities()) + "]"
                                       : "unavailable: " + q.declined.message();
          if (q.excluded) state = "excluded by parameter '" + r.fw->name() + "'; " + state;
          std::printf("  %-10s v%-7s priority %-4d %-9s %s\n", d->name, d->version, q.priority,
                      q.entry->origin == "built-in" ? "built-in" : "plugin", state.c_str());
          for (const auto& line : q.details) std::printf("  %-10s %s\n", "", line.c_str());
        }
        if (r.selection.ok())
          std::printf("  selected: %s\n", str::join(r.selected, ", ").c_str());
        else
          std::printf("  selected: none (%s)\n", r.selection.message().c_str());
      }
      print_bootstraps();
      std::printf("\n");
    }
    std::printf("Parameters (name = value [source]):\n");
    for (const Param* p : params) {
      std::string src = p->source.kind == SourceKind::kDefault ? "default" : p->source.describe();
      std::string type = param_type_name(p->spec.type);
      if (p->spec.type == ParamType::kEnum && p->spec.choices != nullptr) type += " " + std::string(p->spec.choices);
      std::printf("  %s = %s  [%s; %s, default '%s']\n      %s\n", p->name.c_str(),
                  format_param_value(p->spec.type, p->value).c_str(), src.c_str(), type.c_str(),
                  p->default_text.c_str(), p->spec.help ? p->spec.help : "");
    }
  }
  if (selection_failed) {
    for (const auto& r : reports)
      if (!r.selection.ok()) std::fprintf(stderr, "lazarus: error: %s\n", r.selection.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "List frameworks, components (and why an unavailable one declines) and parameters");
  opt->common.add_to(*cmd);
  cmd->add_option("--param", opt->param,
                  "Show only the parameters of FRAMEWORK and COMPONENT ('all' for every one), e.g. --param cr criu")
      ->expected(1, 2)
      ->type_name("FRAMEWORK [COMPONENT|all]");
  cmd->add_flag("--json", opt->json, "Print JSON instead of text");
  cmd->add_flag("--markdown", opt->markdown,
                "Print the parameter reference (docs/parameters.md): every framework, built-in component and "
                "parameter with type, default, level and meaning; defaults only (no file, environment or plugin is "
                "read)")
      ->excludes("--json");
  cmd->callback([opt, &exit_code] { exit_code = run_info(*opt); });
}

}  // namespace lz::cli
