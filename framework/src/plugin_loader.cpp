#include "lazarus/plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace lz {

std::vector<std::string> list_plugin_files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* ent = readdir(d)) {
    std::string n = ent->d_name;
    if (n.size() < 4 || n.compare(n.size() - 3, 3, ".so") != 0) continue;
    std::string path = dir + "/" + n;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(path);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

StatusOr<LoadedPlugin> load_plugin(const std::string& path, uint32_t (*expected_interface)(const char*)) {
  dlerror();
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    return InvalidArgument("plugin " + path + " cannot be loaded: " + (err ? err : "unknown dlopen error"));
  }
  auto close_on_error = [h](Status s) {
    dlclose(h);
    return s;
  };
  auto entry = reinterpret_cast<lz_plugin_entry_fn>(dlsym(h, LZ_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr)
    return close_on_error(InvalidArgument("plugin " + path + " exports no '" LZ_PLUGIN_ENTRY_SYMBOL
                                          "' symbol; it is not a Lazarus component"));
  const ComponentDescriptor* d = entry();
  if (d == nullptr || d->magic != kComponentMagic)
    return close_on_error(InvalidArgument("plugin " + path + " returned no valid component descriptor (bad magic)"));
  if (d->abi_version != kComponentAbiVersion)
    return close_on_error(InvalidArgument("plugin " + path + " was built for component ABI version " +
                                          std::to_string(d->abi_version) + ", this Lazarus has version " +
                                          std::to_string(kComponentAbiVersion) + "; rebuild the plugin"));
  if (d->framework == nullptr || d->name == nullptr)
    return close_on_error(InvalidArgument("plugin " + path + " has a descriptor without framework or name"));
  uint32_t want = expected_interface(d->framework);
  if (want == 0)
    return close_on_error(InvalidArgument("plugin " + path + " (" + d->framework + "/" + d->name +
                                          ") is for unknown framework '" + d->framework + "'"));
  if (d->interface_version != want)
    return close_on_error(InvalidArgument(
        "plugin " + path + " (" + d->framework + "/" + d->name + ") implements " + d->framework +
        " interface version " + std::to_string(d->interface_version) + ", but this Lazarus provides version " +
        std::to_string(want) + "; rebuild the plugin against this Lazarus"));
  return LoadedPlugin{path, d, h};
}

}  // namespace lz
