// Durable file-system helpers of the snapshot store: creating directories
// with a given mode, writing a small file atomically (temporary name, fsync,
// rename, fsync of the directory), bounded reads of small metadata files and
// recursive removal.
//
// They exist because a checkpoint is only worth something if it survives a
// crash of the launcher or of the machine: every step that makes a file or a
// directory entry part of the committed state is followed by the fsync that
// makes it durable, in the order the crash-consistency argument needs.
//
//   LZ_RETURN_IF_ERROR(lz::snapshot::make_dir(dir, 0700));
//   LZ_RETURN_IF_ERROR(lz::snapshot::write_file_atomic(dir + "/manifest.yaml", text, 0600));
//   LZ_ASSIGN_OR_RETURN(std::string t, lz::snapshot::read_small_file(path, 1 << 20));
//
// All errors are kIo and name the path and the failing system call.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::snapshot {

// mkdir(path, mode); an existing directory is accepted and its mode set to
// `mode`. A non-directory at `path` is an error.
Status make_dir(const std::string& path, mode_t mode);
// Creates `path` and any missing parents; the directories created get `mode`,
// existing ones are left as they are (the root may be a shared directory).
Status make_dirs(const std::string& path, mode_t mode);
// fsync() of a directory, making the entries created or renamed in it durable.
Status fsync_dir(const std::string& path);
// Writes `content` to "<path>.tmp" (mode `mode`), fsyncs it, renames it over
// `path` and fsyncs the parent directory: readers see the old or the new file,
// never a mixture, even across a crash.
Status write_file_atomic(const std::string& path, std::string_view content, mode_t mode);
// Reads a whole regular file of at most `max_bytes` (larger: kDataLoss naming
// the file: a metadata file that large is not one of ours).
StatusOr<std::string> read_small_file(const std::string& path, size_t max_bytes);
// Removes `path` and everything below it; symbolic links are removed, never
// followed. A missing path is not an error.
Status remove_tree(const std::string& path);
// The directory part of `path` ("." when there is none).
std::string parent_dir(const std::string& path);

}  // namespace lz::snapshot
