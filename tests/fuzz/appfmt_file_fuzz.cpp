// Fuzz target: an application-level snapshot file (rank.<N>.lzck) opened,
// listed and verified as `lazarus snapshot verify` and a restart do.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lazarus/appfmt/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/lz-fuzz-appfmt-" + std::to_string(getpid()) + ".lzck";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto r = lz::appfmt::Reader::open(path);
  if (r.ok()) {
    (void)r->verify();
    for (const auto& v : r->variables())
      if (v.raw_bytes <= (1u << 20)) {
        std::vector<unsigned char> buf(v.raw_bytes);
        (void)r->read(v.var.name, buf.data(), buf.size());
      }
  }
  unlink(path.c_str());
  return 0;
}
