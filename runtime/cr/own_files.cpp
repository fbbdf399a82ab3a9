#include "cr/own_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "lazarus/procfiles/file_scan.h"
#include "lazarus/unique_fd.h"

namespace lz::rt {

Status record_own_files(const ParamStore& params, const std::string& rank_dir) {
  procfiles::ScanOptions o;
  if (params.is_registered("cr_files")) {
    LZ_ASSIGN_OR_RETURN(o.policy, procfiles::parse_policy(params.get_string("cr_files")));
    const int64_t max = params.get_int("cr_files_copy_max");
    o.copy_max = max > 0 ? static_cast<uint64_t>(max) : 0;
  }
  UniqueFd dir(open(rank_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return ErrnoError("cannot open the rank's snapshot directory " + rank_dir, errno);
  o.skip_fds.push_back(dir.get());
  LZ_ASSIGN_OR_RETURN(procfiles::ProcessFiles pf, procfiles::scan_process(getpid(), o));
  LZ_RETURN_IF_ERROR(procfiles::keep_copies(pf, dir.get()));
  return procfiles::write_process_files(dir.get(), pf);
}

}  // namespace lz::rt
