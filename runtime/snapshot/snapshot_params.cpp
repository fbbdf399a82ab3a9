#include "snapshot/snapshot_params.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>

#include "snapshot/snapshot_store.h"

namespace lz::snapshot {

namespace {

constexpr ParamSpec kParams[] = {
    {kParamRoot, ParamType::kString, "~/.lazarus/snapshots",
     "Directory holding job snapshots (<root>/<job name>.<job id>/<seq>/). It should be on storage that "
     "survives a reboot and that every host can reach, so a job can restart elsewhere",
     2},
    {kParamKeep, ParamType::kInt, "2",
     "Committed snapshots kept per job: older ones are removed after each successful commit (0: keep all)", 2},
};

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir && *res->pw_dir) return res->pw_dir;
  return "";
}

}  // namespace

Status register_snapshot_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime");
}

std::string expand_snapshot_root(const std::string& text) {
  std::string rest;
  if (text == "~" || text.rfind("~/", 0) == 0) {
    rest = text.substr(1);
  } else if (text == "$HOME" || text.rfind("$HOME/", 0) == 0) {
    rest = text.substr(5);
  } else if (!text.empty()) {
    return text;
  }
  std::string home = home_dir();
  if (home.empty()) return "/var/tmp/lazarus-" + std::to_string(getuid()) + "/snapshots";
  if (text.empty()) return home + "/.lazarus/snapshots";
  return home + rest;
}

std::string snapshot_root(const ParamStore& params) { return expand_snapshot_root(params.get_string(kParamRoot)); }

StoreOptions store_options(const ParamStore& params) {
  StoreOptions o;
  o.keep = params.get_int(kParamKeep);
  return o;
}

}  // namespace lz::snapshot
