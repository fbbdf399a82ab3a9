// Open MPI's and MPICH's tuning names, in Lazarus' terms: job scripts carry
// `--mca btl self,vader`, OMPI_MCA_* variables, Open MPI parameter files and
// MPIR_CVAR_* settings that should not stop a job. Each name is mapped where
// Lazarus has the same thing (plm_rsh_agent -> launch_agent, btl/pml ->
// transport, btl_tcp_if_include -> transport_tcp_if_include, ...), and is
// otherwise accepted with one warning that names it and says it has no
// effect here. A name of neither family (a misspelled Lazarus name) is left
// to the parameter store, which refuses it with a "did you mean".
//
//   ForeignParams f;
//   f.add_ompi("btl", "self,vader", "--mca");            // -> transport = shm,self
//   f.add_environment(environ);                          // OMPI_MCA_*, MPIR_CVAR_*
//   for (auto& [name, value] : f.mca()) ...              // Lazarus parameters
//   for (auto& w : f.warnings()) ...
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lazarus/status.h"

namespace lz::launcher {

// Launcher options an Open MPI parameter stands for (hwloc_base_binding_policy ...).
struct ForeignOptions {
  std::string bind_to;  // empty: not given
  std::string map_by;
  int oversubscribe = -1;  // -1: not given
};

class ForeignParams {
 public:
  // Whether `name` is an Open MPI MCA parameter (by its framework prefix,
  // btl_, pml_, plm_, rmaps_ ...) or one of its framework selectors.
  static bool is_ompi_name(const std::string& name);
  // Whether `name` is one this class maps to a Lazarus counterpart (btl,
  // plm_rsh_agent, coll_tuned_*_algorithm ...), not just an Open MPI name.
  static bool maps_ompi_name(const std::string& name);
  // coll_tuned_<op>_algorithm: a name both have; Open MPI's values (numbers,
  // its algorithm names) become coll/tuned's names, Lazarus' pass.
  static bool maps_coll_algorithm(const std::string& name);

  // An Open MPI parameter from `where` ("--mca", "OMPI_MCA_btl", "file:3").
  void add_ompi(const std::string& name, const std::string& value, const std::string& where);
  // An MPICH control variable (MPIR_CVAR_<NAME>, without the prefix).
  void add_mpich(const std::string& name, const std::string& value, const std::string& where);
  // OMPI_MCA_* and MPIR_CVAR_* of an environment.
  void add_environment(char** envp);
  // "name = value" lines of an Open MPI parameter file (mca-params.conf,
  // --am FILE); '#' comments. kNotFound / kInvalidArgument naming file and line.
  Status add_file(const std::string& path);

  // The Lazarus parameters they map to, in the order they came (a later one
  // of the same name wins, as for --mca).
  const std::vector<std::pair<std::string, std::string>>& mca() const { return mca_; }
  const ForeignOptions& options() const { return options_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void no_effect(const std::string& what, const std::string& where, const std::string& why);
  void set(const std::string& name, const std::string& value);

  std::vector<std::pair<std::string, std::string>> mca_;
  ForeignOptions options_;
  std::vector<std::string> warnings_;
};

}  // namespace lz::launcher
