#include "lazarus/datatype/registered_variables.h"

#include "lazarus/datatype/datatype.h"

namespace lz::dt {

RegisteredVariables::~RegisteredVariables() {
  for (const auto& v : vars_) lz_datatype_s::release(v.type);
}

Status RegisteredVariables::add(cr::AppVariable v) {
  for (const auto& x : vars_)
    if (x.name == v.name) {
      lz_datatype_s::release(v.type);
      return InvalidArgument("a variable named '" + v.name + "' is registered already (LZ_Unregister it first)");
    }
  vars_.push_back(std::move(v));
  loaded_.push_back(false);
  return Status::Ok();
}

Status RegisteredVariables::remove(const std::string& name) {
  for (size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].name == name) {
      lz_datatype_s::release(vars_[i].type);
      vars_.erase(vars_.begin() + static_cast<ptrdiff_t>(i));
      loaded_.erase(loaded_.begin() + static_cast<ptrdiff_t>(i));
      return Status::Ok();
    }
  return NotFound("no variable named '" + name + "' is registered");
}

std::vector<cr::AppVariable> RegisteredVariables::unloaded() const {
  std::vector<cr::AppVariable> todo;
  for (size_t i = 0; i < vars_.size(); ++i)
    if (!loaded_[i]) todo.push_back(vars_[i]);
  return todo;
}

void RegisteredVariables::mark_loaded() { loaded_.assign(vars_.size(), true); }

}  // namespace lz::dt
