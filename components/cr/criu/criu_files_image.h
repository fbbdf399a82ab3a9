// Taking the validation of recorded files away from CRIU.
//
// CRIU stores the size of every regular file a process holds (except those
// opened O_WRONLY|O_APPEND) in files.img and refuses the restore when the
// file's size differs ("File ... has bad size 2077 (expect 1843)"): a log
// that grew after the checkpoint makes every restore fail. Lazarus records
// those files itself (lazarus/procfiles) and puts them back before the
// restore, by a policy the user chooses (truncate, copy, keep), so the
// post-dump hook removes CRIU's size, build-id and checksum fields from the
// entries of the files it recorded. CRIU still checks the file's mode, and
// reopens it by path with its flags and offset.
//
// files.img: two 32-bit magics, then entries of a 32-bit little-endian length
// and a FileEntry protobuf message (images/fdinfo.proto); a regular file's is
// field 3, a RegFileEntry (images/regfile.proto: name 6, size 8, build_id 11,
// checksum 12-14).
//
//   LZ_ASSIGN_OR_RETURN(int n, drop_file_validation(dir_fd, {"/tmp/log.0"}));
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::cr::criu {

inline constexpr const char* kFilesImage = "files.img";

// Rewrites <dir_fd>/files.img (temporary name, fsync, rename) without the
// validation fields of the regular-file entries whose path is in `paths`.
// Returns how many entries changed. kDataLoss names a malformed image.
StatusOr<int> drop_file_validation(int dir_fd, const std::set<std::string>& paths);

// The same on an image held in memory (tests): returns the new image.
StatusOr<std::string> drop_file_validation_in(std::string_view image, const std::set<std::string>& paths, int* changed);

}  // namespace lz::cr::criu
