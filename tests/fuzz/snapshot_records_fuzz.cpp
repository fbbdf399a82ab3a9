// Fuzz target: a snapshot's COMMITTED record and a job's manifest.yaml, as
// `lazarus restart` and --recover auto read them from the store.
#include <cstddef>
#include <cstdint>
#include <string>

#include "snapshot/commit_record.h"
#include "snapshot/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)lz::snapshot::CommitRecord::parse(text, "COMMITTED");
  (void)lz::snapshot::Manifest::parse(text, "manifest.yaml");
  return 0;
}
