// Writing a small file inside a directory held open, so that a reader sees
// the old file or the whole new one: a temporary name in the same directory,
// fsync, rename. Used for the records beside checkpoint images (cr/criu's
// meta file and files.img, lazarus/procfiles' file record), whose directory
// may be known only by its descriptor.
//
//   LZ_RETURN_IF_ERROR(lz::write_file_at(dir_fd, "lazarus-files.yaml", text));
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz {

// Writes `text` to `name` in `dir_fd` through ".<name>.tmp" (removed on
// failure). Errors name the file and the failing call.
Status write_file_at(int dir_fd, const std::string& name, std::string_view text, mode_t mode = 0600);

}  // namespace lz
