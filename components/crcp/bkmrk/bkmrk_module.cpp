#include "bkmrk_module.h"

namespace lz::crcp::bkmrk {

Status BkmrkModule::quiesce(Coordinator& c) { return drain_to_bookmarks(c, timeout_); }

Status BkmrkModule::resume(Coordinator& c, bool restarted) {
  (void)restarted;  // held frames are the same either way: they are in the image
  c.hold_sends(false);
  return Status::Ok();
}

}  // namespace lz::crcp::bkmrk
