// The cr/criu module as the MPI CR thread and the launcher use it, selected
// through the registry (--mca cr criu):
//   criu_module_prog dump DIR      computes; half-way module->checkpoint({DIR});
//                                  prints the outcome and the result; the process
//                                  that continued then waits to be killed
//   criu_module_prog restore DIR   module->restore({DIR, stdout 1, stderr 2}),
//                                  waits for the restored process, exits with its status
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "lazarus/frameworks/cr.h"
#include "lazarus/registry.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s dump|restore DIR\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  lz::Registry reg;
  lz::ConfigOptions opt;
  opt.read_default_file = false;
  opt.read_user_file = false;
  opt.load_plugins = false;
  opt.mca = {{"cr", "criu"}};
  if (auto s = reg.configure(opt); !s.ok()) {
    std::fprintf(stderr, "configure: %s\n", s.message().c_str());
    return 3;
  }
  auto sel = reg.framework("cr")->select(reg.query_context());
  if (!sel.ok() || sel->empty()) {
    std::fprintf(stderr, "select cr=criu: %s\n", sel.ok() ? "nothing" : sel.status().message().c_str());
    return 3;
  }
  auto* cr = dynamic_cast<lz::cr::Module*>(sel->front().module.get());
  if (cr == nullptr || !cr->init().ok()) return 3;
  if ((cr->capabilities() & (lz::cr::kCapCoreImage | lz::cr::kCapNeedsPrivilege)) !=
      (lz::cr::kCapCoreImage | lz::cr::kCapNeedsPrivilege)) {
    std::fprintf(stderr, "unexpected capabilities %s\n", lz::cr::capability_names(cr->capabilities()).c_str());
    return 3;
  }

  if (mode == "restore") {
    lz::cr::RestoreRequest req;
    req.dir = dir;
    req.rank = 0;
    req.stdout_fd = 1;
    req.stderr_fd = 2;
    auto pid = cr->restore(req);
    if (!pid.ok()) {
      std::fprintf(stderr, "restore: %s\n", pid.status().message().c_str());
      return 4;
    }
    int st = 0;
    while (waitpid(*pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  uint64_t state[512];
  for (int i = 0; i < 512; ++i) state[i] = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  bool restarted = false;
  for (int it = 0; it < 4000; ++it) {
    for (int i = 0; i < 512; ++i) state[i] = (state[i] ^ state[(i * 7 + it) % 512]) * 0x100000001b3ull + it;
    if (it == 2000) {
      auto outcome = cr->checkpoint({dir, 1, 0, false});
      if (!outcome.ok()) {
        std::fprintf(stderr, "checkpoint: %s\n", outcome.status().message().c_str());
        return 5;
      }
      restarted = *outcome == lz::cr::Outcome::kRestarted;
      std::printf("outcome %s\n", restarted ? "restarted" : "continued");
      std::fflush(stdout);
    }
  }
  uint64_t sum = 0;
  for (int i = 0; i < 512; ++i) sum = sum * 31 + state[i];
  std::printf("result %016" PRIx64 "\n", sum);
  std::fflush(stdout);
  if (!restarted)
    for (;;) pause();
  return 0;
}
