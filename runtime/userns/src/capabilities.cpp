#include "lazarus/userns/capabilities.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace lz::userns {
namespace {

struct CapSets {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
};

bool read_caps(CapSets* c) { return syscall(SYS_capget, &c->header, c->data) == 0; }

}  // namespace

bool has_effective(int cap) {
  CapSets c;
  if (!read_caps(&c)) return false;
  return (c.data[cap / 32].effective >> (cap % 32)) & 1u;
}

bool checkpoint_capable() {
  return geteuid() == 0 || has_effective(kCapCheckpointRestore) || has_effective(kCapSysAdmin);
}

Status keep_only(std::initializer_list<int> keep, std::initializer_list<int> pass_on) {
  CapSets c;
  for (auto& d : c.data) d = {};
  for (int cap : keep) {
    c.data[cap / 32].permitted |= 1u << (cap % 32);
    c.data[cap / 32].effective |= 1u << (cap % 32);
  }
  for (int cap : pass_on) c.data[cap / 32].inheritable |= 1u << (cap % 32);
  if (syscall(SYS_capset, &c.header, c.data) != 0)
    return ErrnoError("capset (keep " + std::to_string(keep.size()) + " capabilities)", errno);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
    return ErrnoError("clear ambient capabilities", errno);
  for (int cap : pass_on)
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0)
      return ErrnoError("raise ambient capability " + std::to_string(cap), errno);
  return Status::Ok();
}

}  // namespace lz::userns
