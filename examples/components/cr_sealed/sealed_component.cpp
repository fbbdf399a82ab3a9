// Descriptor of cr/sealed (examples/components/cr_sealed).
#include <sodium.h>

#include <cstring>
#include <iterator>
#include <memory>

#include "lazarus/param_store.h"
#include "lazarus/registry.h"
#include "sealed_module.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"key_file", lz::ParamType::kString, "",
     "File holding the 32-byte key snapshots are sealed with (mode 0600; head -c 32 /dev/urandom > FILE)", 3},
};

bool asked_for(const lz::QueryContext& ctx) {
  if (!ctx.params->is_registered("cr")) return false;
  for (const auto& name : ctx.params->get_list("cr"))
    if (name == "sealed") return true;
  return false;
}

// cr/app's module, through its built-in descriptor (lazarus/registry.h),
// queried with the settings it would see had the user asked for it: its own
// parameters (cr_app_*) apply unchanged.
lz::StatusOr<std::unique_ptr<lz::cr::Module>> make_app(const lz::QueryContext& ctx) {
  const lz::ComponentDescriptor* app = nullptr;
  const lz::BuiltinList builtins = lz::builtin_components();
  for (size_t i = 0; i < builtins.count; ++i)
    if (std::strcmp(builtins.items[i]->framework, "cr") == 0 && std::strcmp(builtins.items[i]->name, "app") == 0)
      app = builtins.items[i];
  if (app == nullptr) return lz::Unavailable("this Lazarus has no built-in cr/app to wrap");
  lz::ParamStore params = *ctx.params;
  params.set("cr", "app", lz::Source{lz::SourceKind::kApi, "cr/sealed"});
  LZ_RETURN_IF_ERROR(params.resolve());
  lz::QueryContext inner = ctx;
  inner.params = &params;
  inner.param_prefix = "cr_app_";
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<lz::Module> m, app->query(inner));
  return std::unique_ptr<lz::cr::Module>(static_cast<lz::cr::Module*>(m.release()));
}

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  if (ctx.params == nullptr) return lz::Internal("sealed: query without parameters");
  if (!asked_for(ctx))
    return lz::Unavailable("used only when asked for (--mca cr sealed --mca crcp c3), with cr_sealed_key_file");
  if (sodium_init() < 0) return lz::Unavailable("libsodium failed to initialise");
  const std::string key_file = ctx.params->get_string(ctx.param_prefix + "key_file");
  if (key_file.empty()) return lz::Unavailable("cr_sealed_key_file is not set: no key to seal snapshots with");
  LZ_ASSIGN_OR_RETURN(sealed::Key key, sealed::read_key_file(key_file));
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<lz::cr::Module> inner, make_app(ctx));
  return std::unique_ptr<lz::Module>(new sealed::SealedModule(std::move(inner), key));
}

}  // namespace

LZ_COMPONENT(cr, sealed) = {
    LZ_COMPONENT_HEADER(cr, sealed, lz::cr::kInterfaceVersion),
    "1.0.0", "Example (SDK): cr/app's snapshot files sealed with libsodium secretbox under a key file",
    /*default_priority=*/5, kParams, std::size(kParams), &query, nullptr};
