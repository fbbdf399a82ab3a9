// ParamStore: every registered parameter, the settings gathered from each
// source, and the resolved current values.
//
// Sources, lowest to highest precedence: built-in default < YAML files (in the
// order added: shipped default, user file, --config) < environment
// `LZ_MCA_<name>` < command line `--mca <name> <value>` < API (tests, runtime).
// Settings are recorded first and checked in resolve(), because plugins loaded
// from `component_path` register their parameters only after the sources are
// read. After resolve() the store is read-only and safe to read from any thread.
//
//   lz::ParamStore ps;
//   ps.register_param("transport_tcp_eager_limit", spec, "transport/tcp").ignore();
//   LZ_RETURN_IF_ERROR(ps.load_yaml_file("config/lazarus.yaml"));
//   ps.load_environment(environ);
//   ps.set("transport_tcp_eager_limit", "32k", {lz::SourceKind::kCommandLine, "--mca"});
//   LZ_RETURN_IF_ERROR(ps.resolve());
//   int64_t limit = ps.get_int("transport_tcp_eager_limit");
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lazarus/param.h"
#include "lazarus/status.h"

namespace lz {

enum class SourceKind : int { kDefault = 0, kFile = 1, kEnv = 2, kCommandLine = 3, kApi = 4 };
const char* source_kind_name(SourceKind k) noexcept;

struct Source {
  SourceKind kind = SourceKind::kDefault;
  std::string where;  // "file.yaml:12", "LZ_MCA_cr", "--mca", "default"
  std::string describe() const;  // "set in file.yaml:12", "set by LZ_MCA_cr", ...
};

struct Param {
  std::string name;   // full name
  ParamSpec spec;     // spec.name points at the registering table (static storage)
  std::string owner;  // "cr/criu", "framework cr", "runtime"
  std::string default_text;  // canonical text of the default
  ParamValue value;
  Source source;      // where the current value came from
};

class ParamStore {
 public:
  inline static constexpr const char* kEnvPrefix = "LZ_MCA_";

  // Registers `full_name`. Fails if the name is taken or the default does not
  // parse (a programming error in the component's table).
  Status register_param(const std::string& full_name, const ParamSpec& spec, const std::string& owner);
  bool is_registered(const std::string& name) const { return params_.count(name) != 0; }

  // Records a setting; checked by resolve().
  void set(const std::string& name, const std::string& value, Source source);
  // Reads a YAML mapping of parameter names to values. Nested mappings are
  // joined with '_' (`cr: {criu: {priority: 5}}` sets cr_criu_priority);
  // sequences become lists. A malformed file is an error naming file and line.
  Status load_yaml_file(const std::string& path);
  Status load_yaml_string(const std::string& text, const std::string& origin);
  // Records every LZ_MCA_<name>=value from `envp`.
  void load_environment(char** envp);

  // The highest-precedence recorded text for `name`, before resolve(); used for
  // parameters needed to find plugins (`component_path`).
  std::optional<std::string> peek(const std::string& name) const;

  // Checks every recorded setting against the registered parameters and
  // computes current values. Unknown names get a "did you mean" suggestion;
  // all problems are reported together, one per line.
  Status resolve();
  // The same, except that settings of names not registered are not errors
  // when `unknown` is given: each goes into it as "'<name>' (<source>)". For a
  // process that knows only part of Lazarus' parameters and reads the same
  // files and environment as Lazarus (liblazarus-ft, runtime/ft). Bad values
  // of registered parameters are errors still.
  Status resolve(std::vector<std::string>* unknown);

  const Param* find(const std::string& name) const;
  std::vector<const Param*> all() const;  // sorted by name
  std::vector<std::string> names() const;

  // Typed getters; the parameter must be registered with a matching type
  // (a mismatch is a programming error and aborts in debug builds).
  bool get_bool(const std::string& name) const;
  int64_t get_int(const std::string& name) const;  // kInt and kSize
  double get_double(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  // kString and kEnum
  const std::vector<std::string>& get_list(const std::string& name) const;

 private:
  struct Setting {
    std::string name;
    std::string value;
    Source source;
    size_t order;
  };
  const Param& must_find(const std::string& name) const;

  std::map<std::string, Param> params_;
  std::vector<Setting> settings_;
};

}  // namespace lz
