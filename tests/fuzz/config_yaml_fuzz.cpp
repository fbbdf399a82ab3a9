// Fuzz target: a YAML parameter file (lazarus.yaml, --mca-file) loaded into
// a parameter store with parameters of every type registered.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lazarus/param_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const lz::ParamSpec kSpecs[] = {
      {"fz_int", lz::ParamType::kInt, "1", "an int", 1},
      {"fz_size", lz::ParamType::kSize, "4k", "a size", 1},
      {"fz_double", lz::ParamType::kDouble, "0.5", "a double", 1},
      {"fz_bool", lz::ParamType::kBool, "false", "a bool", 1},
      {"fz_string", lz::ParamType::kString, "x", "a string", 1},
  };
  lz::ParamStore ps;
  for (const auto& s : kSpecs) (void)ps.register_param(s.name, s, "fuzz");
  (void)ps.load_yaml_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  return 0;
}
