// lazarus-component-check FILE FRAMEWORK NAME: the descriptor checks that
// lazarus_add_component() (the SDK) runs after building a plugin. Loads FILE
// exactly as `component_path` loading does (lz::load_plugin: the entry point,
// magic, component ABI version, the framework's interface version of this
// Lazarus), then checks that the descriptor names FRAMEWORK/NAME (the file
// name and the build's view of it), has a query function, and that its
// parameter table is well formed. A failure prints why and exits 1, so the
// build of a plugin that `lazarus` would refuse fails where it is made.
#include <cstdio>
#include <cstring>
#include <string>

#include "lazarus/plugin_loader.h"
#include "lazarus/registry.h"

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "lazarus-component-check: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: lazarus-component-check FILE FRAMEWORK NAME\n");
    return 2;
  }
  const std::string path = argv[1], fw = argv[2], name = argv[3];
  auto loaded = lz::load_plugin(path, &lz::Registry::interface_version_of);
  if (!loaded.ok()) return fail(loaded.status().message());
  const lz::ComponentDescriptor* d = loaded->desc;
  if (fw != d->framework || name != d->name)
    return fail(path + " declares " + d->framework + "/" + d->name + ", the build says " + fw + "/" + name);
  if (d->query == nullptr) return fail(path + " (" + fw + "/" + name + ") has no query function");
  if (d->num_params > 0 && d->params == nullptr)
    return fail(path + " (" + fw + "/" + name + ") declares " + std::to_string(d->num_params) +
                " parameters but no table");
  for (size_t i = 0; i < d->num_params; ++i) {
    const lz::ParamSpec& p = d->params[i];
    if (p.name == nullptr || *p.name == '\0' || p.help == nullptr)
      return fail(path + " (" + fw + "/" + name + "): parameter " + std::to_string(i) + " has no name or help");
  }
  std::printf("%s: %s/%s, component ABI %u, %s interface %u: ok\n", path.c_str(), d->framework, d->name,
              d->abi_version, d->framework, d->interface_version);
  return 0;
}
