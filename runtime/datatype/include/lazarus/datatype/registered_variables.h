// The variables a program registered for application-level checkpoints
// (LZ_Register and its variants), kept by the runtime's AppService and by
// liblazarus-ft's Session alike. Names are unique; each variable holds one
// reference to its datatype, handed over by add() and released when the
// variable goes (remove(), or the list's end). After a restart each variable
// is loaded once, whenever it was registered.
//
//   lz::dt::RegisteredVariables vars;
//   type->retain();
//   LZ_RETURN_IF_ERROR(vars.add({"u", u, n, type}));    // on error the reference is released
//   cr.save_variables({dir, job, seq, point, rank, np, &vars.all()});
//   auto todo = vars.unloaded();                        // restart: not loaded yet
//   LZ_RETURN_IF_ERROR(cr.load_variables({dir, rank, np, &todo}));
//   vars.mark_loaded();
#pragma once

#include <string>
#include <vector>

#include "lazarus/frameworks/cr.h"
#include "lazarus/status.h"

namespace lz::dt {

class RegisteredVariables {
 public:
  RegisteredVariables() = default;
  ~RegisteredVariables();
  RegisteredVariables(const RegisteredVariables&) = delete;
  RegisteredVariables& operator=(const RegisteredVariables&) = delete;

  // Takes `v` with its datatype reference; a name registered already is
  // kInvalidArgument, and the reference is released.
  Status add(cr::AppVariable v);
  // Releases the variable's datatype; kNotFound for an unknown name.
  Status remove(const std::string& name);
  const std::vector<cr::AppVariable>& all() const { return vars_; }
  // The variables not loaded since registration (copies, for load_variables).
  std::vector<cr::AppVariable> unloaded() const;
  void mark_loaded();

 private:
  std::vector<cr::AppVariable> vars_;
  std::vector<bool> loaded_;  // parallel to vars_
};

}  // namespace lz::dt
