#include "lazarus/framework.h"

#include <algorithm>

#include "lazarus/param_store.h"
#include "lazarus/strings.h"

namespace lz {

bool SelectionFilter::admits(const std::string& component) const {
  bool listed = std::find(names.begin(), names.end(), component) != names.end();
  switch (mode) {
    case Mode::kAll: return true;
    case Mode::kInclude: return listed;
    case Mode::kExclude: return !listed;
  }
  return true;
}

Framework::Framework(std::string name, SelectKind kind, uint32_t interface_version, std::string description)
    : name_(std::move(name)), kind_(kind), interface_version_(interface_version), description_(std::move(description)) {}

Status Framework::add(const ComponentDescriptor* desc, std::string origin) {
  if (desc->framework == nullptr || name_ != desc->framework)
    return InvalidArgument(origin + ": component '" + (desc->name ? desc->name : "?") + "' belongs to framework '" +
                           (desc->framework ? desc->framework : "?") + "', not '" + name_ + "'");
  if (const ComponentEntry* have = find(desc->name))
    return InvalidArgument(origin + ": component " + name_ + "/" + desc->name + " is already provided by " +
                           have->origin);
  components_.push_back(ComponentEntry{desc, std::move(origin)});
  return Status::Ok();
}

const ComponentEntry* Framework::find(const std::string& component) const {
  for (const auto& e : components_)
    if (component == e.desc->name) return &e;
  return nullptr;
}

std::vector<std::string> Framework::component_names() const {
  std::vector<std::string> out;
  for (const auto& e : components_) out.emplace_back(e.desc->name);
  return out;
}

std::string Framework::priority_param(const std::string& component) const {
  return name_ + "_" + component + "_priority";
}

StatusOr<SelectionFilter> Framework::filter(const ParamStore& params) const {
  SelectionFilter f;
  const Param* p = params.find(name_);
  std::vector<std::string> items = p ? std::get<std::vector<std::string>>(p->value) : std::vector<std::string>{};
  if (items.empty()) return f;
  const std::string where = p->source.describe();
  // Open MPI's rule: a leading '^' makes the whole list an exclude list
  // ("^a,b" excludes both); a '^' after an unnegated first name is a mix.
  const bool exclude = !items[0].empty() && items[0][0] == '^';
  bool mixed = false;
  for (auto& it : items) {
    if (!it.empty() && it[0] == '^') {
      mixed |= !exclude;
      it.erase(0, 1);
      it = std::string(str::trim(it));
    }
  }
  if (mixed)
    return InvalidArgument("parameter '" + name_ + "' (" + where + ") mixes included and excluded components; use " +
                           "either 'a,b' or '^a,b' (a leading ^ excludes every name in the list)");
  const auto known = component_names();
  for (const auto& it : items) {
    if (find(it) == nullptr)
      return InvalidArgument("parameter '" + name_ + "' (" + where + ") names unknown " + name_ + " component '" + it +
                             "'" + str::did_you_mean(it, known) + "; known: " +
                             (known.empty() ? std::string("none") : str::join(known, ", ")));
  }
  f.mode = exclude ? SelectionFilter::Mode::kExclude : SelectionFilter::Mode::kInclude;
  f.names = std::move(items);
  return f;
}

QueryResult Framework::query_one(const ComponentEntry& e, const QueryContext& base, bool named) const {
  QueryResult r;
  r.entry = &e;
  const std::string pp = priority_param(e.desc->name);
  r.priority = base.params && base.params->find(pp) ? static_cast<int>(base.params->get_int(pp))
                                                     : e.desc->default_priority;
  QueryContext ctx = base;
  ctx.param_prefix = name_ + "_" + e.desc->name + "_";
  ctx.details = base.listing_only ? &r.details : nullptr;
  if (base.params != nullptr) {
    auto f = filter(*base.params);
    ctx.named = f.ok() && f->mode == SelectionFilter::Mode::kInclude &&
                std::find(f->names.begin(), f->names.end(), e.desc->name) != f->names.end();
  }
  ctx.named = ctx.named || named;
  if (e.desc->query == nullptr) {
    r.declined = Internal("component has no query function");
    return r;
  }
  auto m = e.desc->query(ctx);
  if (m.ok() && *m) {
    r.module = std::move(m).value();
  } else {
    r.declined = m.ok() ? Internal("query returned no module") : m.status();
  }
  return r;
}

std::vector<QueryResult> Framework::query_all(const QueryContext& base) const {
  std::vector<QueryResult> out;
  SelectionFilter f;
  if (base.params) {
    auto fr = filter(*base.params);
    if (fr.ok()) f = *fr;
  }
  for (const auto& e : components_) {
    QueryResult r = query_one(e, base);
    r.excluded = !f.admits(e.desc->name);
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<std::vector<QueryResult>> Framework::select(const QueryContext& base) const {
  if (base.params == nullptr) return Internal("select() without parameters");
  LZ_ASSIGN_OR_RETURN(SelectionFilter f, filter(*base.params));
  std::vector<QueryResult> usable;
  std::vector<std::string> reasons;
  for (const auto& e : components_) {
    if (!f.admits(e.desc->name)) continue;
    QueryResult r = query_one(e, base);
    if (!r.module) {
      if (f.mode == SelectionFilter::Mode::kInclude)
        return Status(r.declined.code() == Code::kOk ? Code::kUnavailable : r.declined.code(),
                      name_ + " component '" + e.desc->name + "' was requested (parameter '" + name_ + "', " +
                          base.params->find(name_)->source.describe() + ") but cannot run here: " +
                          r.declined.message());
      reasons.push_back(std::string(e.desc->name) + ": " + r.declined.message());
      continue;
    }
    usable.push_back(std::move(r));
  }
  std::stable_sort(usable.begin(), usable.end(),
                   [](const QueryResult& a, const QueryResult& b) { return a.priority > b.priority; });
  if (usable.empty())
    return Unavailable("no usable " + name_ + " component" +
                       (reasons.empty() ? std::string() : " (" + str::join(reasons, "; ") + ")"));
  if (kind_ == SelectKind::kSingle) usable.resize(1);
  return usable;
}

}  // namespace lz
