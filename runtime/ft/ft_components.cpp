// The component list of liblazarus-ft's Registry (in liblazarus it is
// generated from every component; here it is the one back end the library
// drives). Its parameter table is what makes cr_app_every and the other
// cr_app_* settings known to the framework's parameter code.
#include "lazarus/registry.h"

extern const lz::ComponentDescriptor lz_component_cr_app;

namespace lz {
namespace {
const ComponentDescriptor* const kBuiltins[] = {&lz_component_cr_app, nullptr};
}  // namespace
BuiltinList builtin_components() { return {kBuiltins, 1}; }
}  // namespace lz
