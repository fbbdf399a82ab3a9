#include "mpi/tool/tool.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cr/runtime_params.h"
#include "lazarus/strings.h"
#include "mpi/entry.h"
#include "p2p/runtime.h"

namespace lz::rt::tool {

namespace {

// Longest text a string or list control variable takes (a read needs this
// buffer at most: MPI_T_cvar_handle_alloc's count).
constexpr int kStringCount = 4096;

std::string runtime_part_desc(const std::string& category) {
  if (category == "lazarus") return "Parameters of the component registry itself (plugins, logging)";
  if (category == "runtime") return "The runtime: launcher channel, snapshot store";
  if (category == "runtime_p2p") return "The point-to-point engine: protocols, waiting, matching";
  if (category == "runtime_cr") return "The checkpoint/restart service of each rank";
  return "Parameters owned by " + category;
}

}  // namespace

Tool& Tool::instance() {
  static Tool* t = new Tool();  // never destroyed: tools may call MPI_T_* from atexit handlers
  return *t;
}

void copy_out(const std::string& s, char* buf, int* len) {
  if (len == nullptr) return;
  const int need = static_cast<int>(s.size()) + 1;
  if (buf == nullptr || *len <= 0) {
    *len = need;
    return;
  }
  const int n = std::min(*len, need);
  std::memcpy(buf, s.data(), static_cast<size_t>(n - 1));
  buf[n - 1] = '\0';
  *len = n;
}

int Tool::add_category(const std::string& name, const std::string& desc, int parent) {
  categories.push_back(Category{name, desc, {}, {}, {}});
  const int idx = static_cast<int>(categories.size()) - 1;
  if (parent >= 0) categories[static_cast<size_t>(parent)].categories.push_back(idx);
  return idx;
}

// "framework cr" -> "cr"; "transport/tcp" -> "transport_tcp" under
// "transport"; "runtime/p2p" -> "runtime_p2p" under "runtime"; "framework"
// (the registry's own) -> "lazarus".
int Tool::category_of_owner(const std::string& owner) {
  std::string name = owner, parent;
  if (owner == "framework")
    name = "lazarus";
  else if (owner.rfind("framework ", 0) == 0)
    name = owner.substr(10);
  else if (auto slash = owner.find('/'); slash != std::string::npos) {
    parent = owner.substr(0, slash);
    name = parent + "_" + owner.substr(slash + 1);
  }
  if (const int known = index_of(categories, name.c_str()); known >= 0) return known;
  int parent_idx = -1;
  if (!parent.empty()) parent_idx = category_of_owner(parent == "runtime" ? "runtime" : "framework " + parent);
  std::string desc = runtime_part_desc(name);
  if (Framework* fw = reg_->framework(name)) desc = fw->description();
  if (!parent.empty())
    if (Framework* fw = reg_->framework(parent))
      if (const ComponentEntry* e = fw->find(owner.substr(owner.find('/') + 1)))
        desc = std::string(e->desc->description) + " (" + e->desc->framework + " component " + e->desc->name + ")";
  return add_category(name, desc, parent_idx);
}

bool Tool::ensure_built() {
  if (built_) return true;
  if (failed_) return false;
  auto reg = std::make_unique<Registry>();
  Status s = register_runtime_params(*reg);
  std::vector<std::string> ignored;  // MPI_Init reports those; the tool lists what it knows
  ConfigOptions opt;
  opt.ignored = &ignored;
  if (s.ok()) s = reg->configure(opt);
  if (!s.ok()) {
    std::fprintf(stderr, "lazarus: MPI_T_init_thread: cannot read the parameters: %s\n", s.message().c_str());
    failed_ = true;
    return false;
  }
  reg_ = std::move(reg);
  for (const auto& fw : reg_->frameworks()) category_of_owner("framework " + fw->name());

  for (const Param* p : reg_->params().all()) {
    Cvar c;
    c.name = p->name;
    c.spec = p->spec;
    c.desc = p->spec.help ? p->spec.help : "";
    // A framework's selection names components every rank must agree on.
    c.scope = reg_->framework(p->name) != nullptr ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
    switch (p->spec.type) {
      case ParamType::kBool:
      case ParamType::kInt:
        c.datatype = MPI_INT;
        break;
      case ParamType::kSize:
        c.datatype = MPI_UNSIGNED_LONG_LONG;
        break;
      case ParamType::kDouble:
        c.datatype = MPI_DOUBLE;
        break;
      case ParamType::kString:
      case ParamType::kList:
        c.datatype = MPI_CHAR;
        c.count = kStringCount;
        break;
      case ParamType::kEnum: {
        c.datatype = MPI_INT;
        lz_mpi_t_enum_s& e = enums.emplace_back();
        e.name = p->name;
        int v = 0;
        for (std::string& choice : str::split(p->spec.choices ? p->spec.choices : "", '|'))
          e.items.emplace_back(v++, std::move(choice));
        c.enumtype = &e;
        break;
      }
    }
    c.category = category_of_owner(p->owner);
    categories[static_cast<size_t>(c.category)].cvars.push_back(static_cast<int>(cvars.size()));
    cvars.push_back(std::move(c));
  }
  add_pvars();
  built_ = true;
  return true;
}

const Param* Tool::param(const Cvar& c) const {
  if (Runtime* rt = runtime_if_any())
    if (const Param* p = rt->registry().params().find(c.name)) return p;
  return reg_->params().find(c.name);
}

int Tool::write(const Cvar& c, const std::string& text) {
  if (g_mpi_state.load() != static_cast<int>(MpiState::kNotInitialized)) return MPI_T_ERR_CVAR_SET_NOT_NOW;
  ParamStore& ps = reg_->params();
  ps.set(c.name, text, Source{SourceKind::kApi, "MPI_T_cvar_write"});
  if (!ps.resolve().ok()) return MPI_ERR_ARG;  // a bad value: the one before stays
  written_.emplace_back(c.name, text);
  set_settings_before_init(written_);
  return MPI_SUCCESS;
}

}  // namespace lz::rt::tool
