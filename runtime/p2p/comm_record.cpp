#include "p2p/comm_record.h"

namespace lz::rt {

CommRecord& CommRecord::instance() {
  static CommRecord record;
  return record;
}

void CommRecord::start_replay(std::vector<Entry> entries) {
  entries_ = std::move(entries);
  next_ = 0;
  replaying_ = true;
  recording_ = false;
}

StatusOr<CommRecord::Entry> CommRecord::next(const std::string& call) {
  if (next_ >= entries_.size())
    return InvalidArgument(call + " before LZ_Restore: the moved rank made " + std::to_string(entries_.size()) +
                           " communicator(s) before its first safe point and this process has made them all; the "
                           "code before LZ_Restore must make the same ones, in the same order");
  const Entry& e = entries_[next_];
  if (e.call != call)
    return InvalidArgument(call + " before LZ_Restore, where the moved rank called " + e.call + " (communicator " +
                           std::to_string(next_ + 1) + "): the code before LZ_Restore must make the same communicators "
                           "in the same order");
  ++next_;
  return e;
}

Status CommRecord::finish_replay() {
  if (!replaying_) return Status::Ok();
  replaying_ = false;
  if (next_ == entries_.size()) return Status::Ok();
  return InvalidArgument("the moved rank made " + std::to_string(entries_.size()) +
                         " communicator(s) before its first safe point, this process only " + std::to_string(next_) +
                         " before LZ_Restore");
}

}  // namespace lz::rt
