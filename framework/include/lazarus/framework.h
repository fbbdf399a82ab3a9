// A framework owns its components and selects among them.
//
// Selection follows Open MPI: the parameter named after the framework (`cr`,
// `transport`, ...) holds an include list ("tcp,self") or an exclude list
// ("^ucx"); otherwise priority decides (`<fw>_<component>_priority`).
// Single-select frameworks (cr, crcp) return exactly one module; multi-select
// frameworks (transport, coll) return every usable module, best first. A
// component named in an include list that cannot run here is a hard error that
// says why; an unknown name is an error with a suggestion.
//
//   auto picked = registry.framework("cr")->select(ctx);
//   if (!picked.ok()) { report(picked.status()); return 1; }
//   auto& cr = static_cast<lz::cr::Module&>(*picked->front().module);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz {

enum class SelectKind { kSingle, kMulti };

struct ComponentEntry {
  const ComponentDescriptor* desc;
  std::string origin;  // "built-in" or the plugin's path
};

// One component's answer to query().
struct QueryResult {
  const ComponentEntry* entry = nullptr;
  int priority = 0;
  std::unique_ptr<Module> module;  // null when declined
  Status declined;                 // ok when module is set
  bool excluded = false;           // filtered out by the selection parameter
  std::vector<std::string> details;  // QueryContext::details, for `lazarus info`
};

// The selection parameter's meaning.
struct SelectionFilter {
  enum class Mode { kAll, kInclude, kExclude } mode = Mode::kAll;
  std::vector<std::string> names;
  bool admits(const std::string& component) const;
};

class Framework {
 public:
  Framework(std::string name, SelectKind kind, uint32_t interface_version, std::string description);

  const std::string& name() const { return name_; }
  SelectKind kind() const { return kind_; }
  uint32_t interface_version() const { return interface_version_; }
  const std::string& description() const { return description_; }

  // Adds a component; refuses a duplicate name or a foreign framework.
  Status add(const ComponentDescriptor* desc, std::string origin);
  const std::vector<ComponentEntry>& components() const { return components_; }
  const ComponentEntry* find(const std::string& component) const;
  std::vector<std::string> component_names() const;

  // Parses and checks the framework's selection parameter.
  StatusOr<SelectionFilter> filter(const ParamStore& params) const;
  // Queries every component (for `lazarus info`); never fails.
  std::vector<QueryResult> query_all(const QueryContext& base) const;
  // Selects per the rules above. Result is ordered by priority, highest first.
  StatusOr<std::vector<QueryResult>> select(const QueryContext& base) const;

  // Queries one component as if the selection parameter named it, whatever
  // it says: for modules opened beside the selected ones (the transports of
  // a dynamic-process connection, runtime/p2p/bridge.h).
  QueryResult query_named(const ComponentEntry& e, const QueryContext& base) const { return query_one(e, base, true); }

  // Priority parameter of a component: "<fw>_<component>_priority".
  std::string priority_param(const std::string& component) const;

 private:
  QueryResult query_one(const ComponentEntry& e, const QueryContext& base, bool named = false) const;

  std::string name_;
  SelectKind kind_;
  uint32_t interface_version_;
  std::string description_;
  std::vector<ComponentEntry> components_;
};

}  // namespace lz
