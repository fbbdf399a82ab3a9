// ParamReader: one component's parameter values by short name, read either
// from a ParamStore (the current values, after resolve()) or from the
// component's own table (the defaults it declares). A component writes one
// function that turns a ParamReader into its config struct; with the table
// reader that same function yields the defaults, so every default is written
// once: in the table.
//
//   StatusOr<TcpConfig> load_config(const lz::ParamReader& p) {
//     TcpConfig c;
//     c.max_frame = static_cast<size_t>(p.get_int("max_frame"));
//     if (c.max_frame < 4096) return InvalidArgument(p.full_name("max_frame") + " is below 4k");
//     return c;
//   }
//   load_config(lz::ParamReader(*ctx.params, ctx.param_prefix));       // current values
//   load_config(lz::ParamReader(kTcpParams, "transport_tcp_")).value();  // the table's defaults
//
// A name missing from the table, or read with the wrong type, is a programming
// error and aborts (as ParamStore's getters do).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/param.h"

namespace lz {

class ParamStore;

class ParamReader {
 public:
  // Current values of "<prefix><name>"; `store` must outlive the reader.
  ParamReader(const ParamStore& store, std::string prefix);
  // The defaults of `table`; `prefix` only names parameters in errors.
  ParamReader(std::span<const ParamSpec> table, std::string prefix);

  bool get_bool(std::string_view name) const;
  int64_t get_int(std::string_view name) const;  // kInt and kSize
  double get_double(std::string_view name) const;
  std::string get_string(std::string_view name) const;  // kString and kEnum
  std::vector<std::string> get_list(std::string_view name) const;

  // "<prefix><name>": what an error message calls the parameter.
  std::string full_name(std::string_view name) const { return prefix_ + std::string(name); }

 private:
  ParamValue default_of(std::string_view name) const;

  const ParamStore* store_ = nullptr;
  std::span<const ParamSpec> table_;
  std::string prefix_;
};

}  // namespace lz
