// MPI binding: the tool interface's set-up, enumerations and control
// variables (MPI-3.1 sections 14.3.1-14.3.6). The variables are Lazarus'
// parameters; tool.h says where their values come from and when they may
// be written.
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/tool/tool.h"

using lz::rt::tool::copy_out;
using lz::rt::tool::Cvar;
using lz::rt::tool::Tool;

struct lz_mpi_t_cvar_handle_s {
  static constexpr uint32_t kMagic = 0x4c5a5443;  // "LZTC"
  uint32_t magic = kMagic;
  int index = 0;
};

namespace {

bool enum_ok(const Tool& t, MPI_T_enum e) {
  for (const auto& x : t.enums)
    if (&x == e) return true;
  return false;
}

bool cvar_handle_ok(MPI_T_cvar_handle h) {
  return h != MPI_T_CVAR_HANDLE_NULL && h->magic == lz_mpi_t_cvar_handle_s::kMagic;
}

}  // namespace

extern "C" {

int MPI_T_init_thread(int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  Tool& tool = Tool::instance();
  std::lock_guard<std::mutex> lock(tool.mu);
  if (!tool.ensure_built()) return MPI_T_ERR_CANNOT_INIT;
  ++tool.init_count;
  if (provided != nullptr) *provided = required;  // every MPI_T_* call takes the tool's lock
  return MPI_SUCCESS;
}

int MPI_T_finalize(void) {
  LZ_MPI_T_ENTRY();
  --tool.init_count;
  return MPI_SUCCESS;
}

int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  LZ_MPI_T_ENTRY();
  if (!enum_ok(tool, enumtype)) return MPI_T_ERR_INVALID_HANDLE;
  if (num != nullptr) *num = static_cast<int>(enumtype->items.size());
  copy_out(enumtype->name, name, name_len);
  return MPI_SUCCESS;
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  LZ_MPI_T_ENTRY();
  if (!enum_ok(tool, enumtype)) return MPI_T_ERR_INVALID_HANDLE;
  if (index < 0 || index >= static_cast<int>(enumtype->items.size())) return MPI_T_ERR_INVALID_ITEM;
  const auto& item = enumtype->items[static_cast<size_t>(index)];
  if (value != nullptr) *value = item.first;
  copy_out(item.second, name, name_len);
  return MPI_SUCCESS;
}

int MPI_T_cvar_get_num(int* num_cvar) {
  LZ_MPI_T_ENTRY();
  if (num_cvar == nullptr) return MPI_ERR_ARG;
  *num_cvar = static_cast<int>(tool.cvars.size());
  return MPI_SUCCESS;
}

int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                        MPI_T_enum* enumtype, char* desc, int* desc_len, int* binding, int* scope) {
  LZ_MPI_T_ENTRY();
  if (cvar_index < 0 || cvar_index >= static_cast<int>(tool.cvars.size())) return MPI_T_ERR_INVALID_INDEX;
  const Cvar& c = tool.cvars[static_cast<size_t>(cvar_index)];
  copy_out(c.name, name, name_len);
  copy_out(c.desc, desc, desc_len);
  if (verbosity != nullptr)
    *verbosity = c.spec.level >= 1 && c.spec.level <= 9 ? c.spec.level : MPI_T_VERBOSITY_USER_BASIC;
  if (datatype != nullptr) *datatype = c.datatype;
  if (enumtype != nullptr) *enumtype = c.enumtype;
  if (binding != nullptr) *binding = MPI_T_BIND_NO_OBJECT;
  if (scope != nullptr) *scope = c.scope;
  return MPI_SUCCESS;
}

int MPI_T_cvar_get_index(const char* name, int* cvar_index) {
  LZ_MPI_T_ENTRY();
  if (name == nullptr || cvar_index == nullptr) return MPI_ERR_ARG;
  *cvar_index = lz::rt::tool::index_of(tool.cvars, name);
  return *cvar_index >= 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_NAME;
}

int MPI_T_cvar_handle_alloc(int cvar_index, void* /*obj_handle: every variable binds to no object*/,
                            MPI_T_cvar_handle* handle, int* count) {
  LZ_MPI_T_ENTRY();
  if (cvar_index < 0 || cvar_index >= static_cast<int>(tool.cvars.size())) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
  auto* h = new lz_mpi_t_cvar_handle_s;
  h->index = cvar_index;
  *handle = h;
  *count = tool.cvars[static_cast<size_t>(cvar_index)].count;
  return MPI_SUCCESS;
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  LZ_MPI_T_ENTRY();
  if (handle == nullptr || !cvar_handle_ok(*handle)) return MPI_T_ERR_INVALID_HANDLE;
  (*handle)->magic = 0;
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  LZ_MPI_T_ENTRY();
  if (!cvar_handle_ok(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  const Cvar& c = tool.cvars[static_cast<size_t>(handle->index)];
  const lz::Param* p = tool.param(c);
  if (p == nullptr) return MPI_T_ERR_INVALID;
  switch (c.spec.type) {
    case lz::ParamType::kBool:
      *static_cast<int*>(buf) = std::get<bool>(p->value) ? 1 : 0;
      break;
    case lz::ParamType::kInt:
      *static_cast<int*>(buf) = static_cast<int>(std::get<int64_t>(p->value));
      break;
    case lz::ParamType::kSize:
      *static_cast<unsigned long long*>(buf) = static_cast<unsigned long long>(std::get<int64_t>(p->value));
      break;
    case lz::ParamType::kDouble:
      *static_cast<double*>(buf) = std::get<double>(p->value);
      break;
    case lz::ParamType::kEnum: {
      const std::string& v = std::get<std::string>(p->value);
      int at = -1;
      for (const auto& [value, item] : c.enumtype->items)
        if (item == v) at = value;
      *static_cast<int*>(buf) = at;
      break;
    }
    case lz::ParamType::kString:
    case lz::ParamType::kList: {
      int len = c.count;
      copy_out(lz::format_param_value(c.spec.type, p->value), static_cast<char*>(buf), &len);
      break;
    }
  }
  return MPI_SUCCESS;
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  LZ_MPI_T_ENTRY();
  if (!cvar_handle_ok(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  const Cvar& c = tool.cvars[static_cast<size_t>(handle->index)];
  std::string text;
  switch (c.spec.type) {
    case lz::ParamType::kBool:
      text = *static_cast<const int*>(buf) != 0 ? "true" : "false";
      break;
    case lz::ParamType::kInt:
      text = std::to_string(*static_cast<const int*>(buf));
      break;
    case lz::ParamType::kSize:
      text = std::to_string(*static_cast<const unsigned long long*>(buf));
      break;
    case lz::ParamType::kDouble: {
      char d[64];
      std::snprintf(d, sizeof d, "%.17g", *static_cast<const double*>(buf));
      text = d;
      break;
    }
    case lz::ParamType::kEnum: {
      const int v = *static_cast<const int*>(buf);
      if (v < 0 || v >= static_cast<int>(c.enumtype->items.size())) return MPI_ERR_ARG;
      text = c.enumtype->items[static_cast<size_t>(v)].second;
      break;
    }
    case lz::ParamType::kString:
    case lz::ParamType::kList:
      text.assign(static_cast<const char*>(buf), strnlen(static_cast<const char*>(buf), static_cast<size_t>(c.count)));
      if (text.size() == static_cast<size_t>(c.count)) return MPI_ERR_ARG;  // not terminated within count
      break;
  }
  return tool.write(c, text);
}

}  // extern "C"
