// What makes `cr_run PROG` work: cr_run starts PROG with liblazarus_cr.so in
// LD_PRELOAD and LAZARUS_CR_RUN=1; this constructor then calls cr_init(), as
// BLCR's libcr_run does, so an unmodified program answers checkpoint requests.
// It removes both variables first, so the program's own children (and the
// criu helper it starts) are not affected.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lazarus/libcr.h"

namespace {

void strip_preload() {
  const char* p = std::getenv("LD_PRELOAD");
  if (p == nullptr) return;
  std::string kept, item;
  std::string all = p;
  for (size_t i = 0; i <= all.size(); ++i) {
    if (i == all.size() || all[i] == ':' || all[i] == ' ') {
      if (!item.empty() && item.find("liblazarus_cr") == std::string::npos) kept += (kept.empty() ? "" : ":") + item;
      item.clear();
    } else {
      item += all[i];
    }
  }
  if (kept.empty())
    unsetenv("LD_PRELOAD");
  else
    setenv("LD_PRELOAD", kept.c_str(), 1);
}

__attribute__((constructor)) void lazarus_cr_run_init() {
  const char* flag = std::getenv("LAZARUS_CR_RUN");
  if (flag == nullptr || std::strcmp(flag, "1") != 0) return;
  unsetenv("LAZARUS_CR_RUN");
  strip_preload();
  if (cr_init() < 0) std::fprintf(stderr, "cr_run: this process cannot be checkpointed: %s\n", cr_lz_last_error());
}

}  // namespace
