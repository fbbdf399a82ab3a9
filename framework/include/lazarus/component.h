// The component model: a component is one folder with one descriptor; it hands
// out a module (a live instance) when it can run here, or declines with a reason.
//
// Every component defines exactly one descriptor, named lz_component_<fw>_<name>:
//
//   static constexpr lz::ParamSpec kParams[] = {
//       {"eager_limit", lz::ParamType::kSize, "64k", "Largest message sent eagerly", 5}};
//   static lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
//     if (!device_present()) return lz::Unavailable("no device found");
//     return std::unique_ptr<lz::Module>(new MyTransport(ctx));
//   }
//   LZ_COMPONENT(transport, mine) = {
//       LZ_COMPONENT_HEADER(transport, mine, lz::transport::kInterfaceVersion),
//       "1.0.0", "My vendor transport", /*default_priority=*/40,
//       kParams, std::size(kParams), &query, nullptr};
//
// Built-in components are listed explicitly by the build (a generated table);
// the same source compiled as a plugin exports `lazarus_component_descriptor()`
// and is loaded from `component_path` (see plugin_loader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/param.h"
#include "lazarus/status.h"

namespace lz {

class ParamStore;

// Layout version of ComponentDescriptor. Bump on any change to the struct.
inline constexpr uint32_t kComponentAbiVersion = 1;
inline constexpr uint32_t kComponentMagic = 0x4c5a4331;  // "LZC1"

// What a component's query() may look at. Cheap to build; query() must not
// open devices or sockets (lazarus info calls it just to list availability):
// resources are acquired later by the framework-specific init method.
struct QueryContext {
  const ParamStore* params = nullptr;
  // Full name of this component's parameters are "<prefix><name>";
  // e.g. "transport_tcp_". Set by the framework before query().
  std::string param_prefix;
  bool listing_only = false;  // true for `lazarus info`
  int rank = -1;              // -1 outside a job
  int size = 0;
  // Set by the framework when listing_only: query() may append lines that
  // `lazarus info` prints under the component (a library version, devices
  // found), whether it declines or not. Appended last: the layout before it
  // is what plugins built earlier read.
  std::vector<std::string>* details = nullptr;
  // True when the framework's selection parameter is an include list naming
  // this component (`--mca transport ucx,self`): a component that takes part
  // in selection only when asked for (ucx, ofi) reads it. Appended last too.
  bool named = false;
};

// Base of every module. Framework headers derive their interfaces from it.
class Module {
 public:
  virtual ~Module() = default;
  // Framework-specific capability bits (see each framework's header).
  virtual uint64_t capabilities() const { return 0; }
};

using QueryFn = StatusOr<std::unique_ptr<Module>> (*)(const QueryContext& ctx);

struct ComponentDescriptor {
  // Stable prefix: read and checked before anything else when loading a plugin.
  uint32_t magic;              // kComponentMagic
  uint32_t abi_version;        // kComponentAbiVersion at build time
  const char* framework;       // "transport", "coll", "cr", "crcp"
  const char* name;            // "tcp"
  uint32_t interface_version;  // the framework interface version built against
  // The rest.
  const char* version;         // component's own version, "1.0.0"
  const char* description;     // one line for `lazarus info`
  int default_priority;        // higher wins; `<fw>_<name>_priority` overrides
  const ParamSpec* params;     // static table, may be null
  size_t num_params;
  // Returns a module, or a non-ok Status (kUnavailable with the reason) when the
  // component cannot run here. Called on the thread that selects.
  QueryFn query;
  // Called once at shutdown if not null; releases component-wide state.
  void (*close)();
};

}  // namespace lz

#define LZ_COMPONENT_SYMBOL(fw, nm) lz_component_##fw##_##nm
// Defines the component's descriptor object.
#define LZ_COMPONENT(fw, nm) extern const ::lz::ComponentDescriptor LZ_COMPONENT_SYMBOL(fw, nm); \
  const ::lz::ComponentDescriptor LZ_COMPONENT_SYMBOL(fw, nm)
#define LZ_COMPONENT_HEADER(fw, nm, iface) \
  ::lz::kComponentMagic, ::lz::kComponentAbiVersion, #fw, #nm, (iface)

// Symbol a plugin exports; returns its descriptor.
#define LZ_PLUGIN_ENTRY_SYMBOL "lazarus_component_descriptor"
extern "C" {
typedef const ::lz::ComponentDescriptor* (*lz_plugin_entry_fn)(void);
}
