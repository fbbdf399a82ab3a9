#include "ucx_library.h"

#include <ucm/api/ucm.h>
#include <ucp/api/ucp.h>
#include <uct/api/uct.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "lazarus/log.h"
#include "lazarus/strings.h"

namespace lz::transport::ucx {
namespace {

// Aliases UCX 1.13 expands in UCX_TLS (ucp_context.c, ucp_tl_aliases), and
// transport families whose members carry a suffix (rc_verbs, rc_mlx5, ...).
constexpr const char* kAliases[] = {"all", "sm", "shm", "mm", "ib", "rc", "rc_v", "rc_x", "ud", "ud_v", "ud_x",
                                    "dc", "dc_x", "ugni", "cuda", "rocm", "scopy"};

std::vector<TlResource> enumerate() {
  std::vector<TlResource> out;
  uct_component_h* comps = nullptr;
  unsigned ncomps = 0;
  if (uct_query_components(&comps, &ncomps) != UCS_OK) return out;
  for (unsigned c = 0; c < ncomps; ++c) {
    uct_component_attr_t attr{};
    attr.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME | UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
    if (uct_component_query(comps[c], &attr) != UCS_OK) continue;
    std::vector<uct_md_resource_desc_t> mds(attr.md_resource_count);
    attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
    attr.md_resources = mds.data();
    if (attr.md_resource_count == 0 || uct_component_query(comps[c], &attr) != UCS_OK) continue;
    for (const auto& mdr : mds) {
      uct_md_config_t* cfg = nullptr;
      if (uct_md_config_read(comps[c], nullptr, nullptr, &cfg) != UCS_OK) continue;
      uct_md_h md = nullptr;
      const ucs_status_t st = uct_md_open(comps[c], mdr.md_name, cfg, &md);
      uct_config_release(cfg);
      if (st != UCS_OK) continue;
      uct_tl_resource_desc_t* tls = nullptr;
      unsigned ntls = 0;
      if (uct_md_query_tl_resources(md, &tls, &ntls) == UCS_OK) {
        for (unsigned t = 0; t < ntls; ++t) out.push_back({tls[t].tl_name, tls[t].dev_name});
        uct_release_tl_resource_list(tls);
      }
      uct_md_close(md);
    }
  }
  uct_release_component_list(comps);
  return out;
}

}  // namespace

std::string library_version() { return ucp_get_version_string(); }

const std::vector<TlResource>& tl_resources() {
  static std::once_flag once;
  static std::vector<TlResource> list;
  std::call_once(once, [] {
    keep_memory_hooks_off();  // md_open may set up a registration cache
    list = enumerate();
  });
  return list;
}

std::string tl_summary() {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> devices;
  for (const auto& r : tl_resources()) {
    auto it = std::find(names.begin(), names.end(), r.tl);
    if (it == names.end()) {
      names.push_back(r.tl);
      devices.push_back({});
      it = names.end() - 1;
    }
    devices[static_cast<size_t>(it - names.begin())].push_back(r.device);
  }
  if (names.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i ? ", " : "") + names[i];
    // Memory transports have one pseudo-device ("memory", "memory0"); show network ones.
    if (devices[i].size() > 1 || (devices[i].size() == 1 && devices[i][0].rfind("memory", 0) != 0))
      out += " (" + str::join(devices[i], ", ") + ")";
  }
  return out;
}

Status check_tls(const std::string& tls, const std::string& param_name) {
  std::string list = tls;
  if (!list.empty() && list[0] == '^') list.erase(0, 1);
  std::vector<std::string> unknown;
  for (std::string item : str::split(list, ',')) {
    if (item.size() > 4 && item.compare(item.size() - 4, 4, ":aux") == 0) item.resize(item.size() - 4);
    bool known = std::find(std::begin(kAliases), std::end(kAliases), item) != std::end(kAliases);
    for (const auto& r : tl_resources()) known = known || r.tl == item || r.tl.rfind(item + "_", 0) == 0;
    if (!known) unknown.push_back(item);
  }
  if (unknown.empty()) return Status::Ok();
  return InvalidArgument(param_name + " = '" + tls + "': UCX " + library_version() + " has no transport " +
                         str::join(unknown, ", ") + " here (it finds: " + tl_summary() +
                         "); set " + param_name + " to some of these, for example posix,cma,tcp,self");
}

void keep_memory_hooks_off() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The loader sets UCX_MEM_MMAP_HOOK_MODE=none itself; only a user's
    // UCX_MEM_EVENTS, or a mode other than none, is a choice to respect.
    const char* mode = std::getenv("UCX_MEM_MMAP_HOOK_MODE");
    if (std::getenv("UCX_MEM_EVENTS") != nullptr || (mode != nullptr && std::string(mode) != "none")) {
      log::debug("ucx: UCX_MEM_EVENTS/UCX_MEM_MMAP_HOOK_MODE set in the environment: memory hooks as the user chose");
      return;
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    ucm_global_config_t opts = ucm_global_opts;  // what libucs's constructor read
#pragma GCC diagnostic pop
    // Events off is the switch: ucm_set_event_handler() then declines before
    // installing anything. The hook mode itself must stay as loaded: UCM
    // picks how to reach the original mmap by it (bistro: a raw syscall),
    // and switching it to "none" in a live process makes ucm_mmap() find
    // itself as the original and recurse until the stack overflows.
    opts.enable_events = 0;
    ucm_set_global_opts(&opts);
  });
}

}  // namespace lz::transport::ucx
