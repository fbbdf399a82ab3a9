// The entry points of liblazarus_ucx.so, looked up by the built-in
// component's loader (ucx_loader.h): plain C names, so that dlsym finds them.
#include <cstring>

#include "ucx_library.h"
#include "ucx_transport.h"

namespace {

void copy_out(const std::string& s, char* out, size_t cap) {
  if (cap == 0) return;
  const size_t n = std::min(s.size(), cap - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) lz::transport::Module* lz_ucx_make_module(
    const lz::transport::ucx::UcxConfig* config) {
  return new lz::transport::ucx::UcxTransport(*config);
}

__attribute__((visibility("default"))) void lz_ucx_library_version(char* out, size_t cap) {
  copy_out(lz::transport::ucx::library_version(), out, cap);
}

__attribute__((visibility("default"))) void lz_ucx_tl_summary(char* out, size_t cap) {
  copy_out(lz::transport::ucx::tl_summary(), out, cap);
}

}  // extern "C"
