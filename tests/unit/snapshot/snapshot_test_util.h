// Helpers of the snapshot store tests: files with given bytes and modes, a
// store fixture with a job record, mode inspection.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "snapshot/manifest.h"

namespace lz::snapshot::test {

// Writes `bytes` bytes of a deterministic pattern (seeded by `seed`) to
// `path`, created with `mode` regardless of the umask.
void write_pattern(const std::string& path, uint64_t bytes, uint32_t seed, mode_t mode = 0600);
void write_text(const std::string& path, const std::string& text, mode_t mode = 0600);
std::string read_text(const std::string& path);
mode_t mode_of(const std::string& path);  // permission bits
bool exists(const std::string& path);
// A job record with every field set.
JobRecord sample_job(const std::string& id = "1a2b3c4d");

}  // namespace lz::snapshot::test
