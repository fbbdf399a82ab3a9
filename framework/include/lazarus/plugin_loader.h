// Loading components from shared objects on `component_path`.
//
// A plugin is a `.so` exporting `extern "C" const lz::ComponentDescriptor*
// lazarus_component_descriptor()`. The loader checks the descriptor's stable
// prefix (magic, descriptor ABI version), then the framework's interface
// version, before touching anything else. A refused file is reported with its
// path and both versions; it never crashes the process.
#pragma once

#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz {

struct LoadedPlugin {
  std::string path;
  const ComponentDescriptor* desc = nullptr;
  void* handle = nullptr;  // dlopen handle; kept open for the life of the process
};

// Loads one file. `expected_interface` maps a framework name to its interface
// version (returns 0 for an unknown framework).
StatusOr<LoadedPlugin> load_plugin(const std::string& path, uint32_t (*expected_interface)(const char* framework));

// Every regular `*.so` file directly inside `dir`, sorted by name. A missing
// directory yields an empty list.
std::vector<std::string> list_plugin_files(const std::string& dir);

}  // namespace lz
