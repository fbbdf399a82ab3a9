// cr_run PROG [ARGS...]: runs PROG so that it can be checkpointed without code
// changes (BLCR's cr_run): PROG starts with liblazarus_cr.so preloaded, whose
// constructor calls cr_init(). cr_run execs PROG, so PROG keeps cr_run's pid.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lazarus/userns/job_namespace.h"

#ifndef LZ_CR_LIBDIR_FROM_BINDIR
#define LZ_CR_LIBDIR_FROM_BINDIR "../lib"
#endif

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "Usage: cr_run PROG [ARGS...]\n"
               "Run PROG so that it can be checkpointed without changes to its code.\n\n"
               "PROG is executed in place of cr_run (same pid) with liblazarus_cr.so preloaded;\n"
               "the library starts libcr's checkpoint thread and the control socket that\n"
               "`cr_checkpoint --pid PID` talks to. Restart an image with `cr_restart DIR`.\n\n"
               "Options:\n"
               "  -h, --help   show this help and exit\n\n"
               "Environment:\n"
               "  LAZARUS_CR_LIBRARY      path of liblazarus_cr.so (default: next to cr_run, in %s)\n"
               "  LZ_MCA_cr_criu_binary   criu binary to use (default: the one found at build time)\n"
               "  LAZARUS_CR_SOCKET_DIR   directory of control sockets (default: $XDG_RUNTIME_DIR/lazarus/cr\n"
               "                          or /tmp/lazarus-<uid>/cr)\n\n"
               "As an ordinary user, PROG runs in a user namespace of its own, where it holds\n"
               "CAP_CHECKPOINT_RESTORE, which CRIU needs (and nothing else: the namespace maps\n"
               "only the user's own ids). The program must not hold IPv4/IPv6 sockets when it\n"
               "is checkpointed.\n",
               LZ_CR_LIBDIR_FROM_BINDIR);
}

std::string library_path() {
  if (const char* e = std::getenv("LAZARUS_CR_LIBRARY"); e && *e) return e;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) return {};
  exe[n] = '\0';
  std::string dir = exe;
  dir.erase(dir.rfind('/'));
  for (const char* rel : {LZ_CR_LIBDIR_FROM_BINDIR, "../lib"}) {
    std::string p = dir + "/" + rel + "/liblazarus_cr.so";
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--") == 0) first = 2;
  if (first >= argc) {
    usage(stderr);
    return 2;
  }
  if (argv[first][0] == '-' && first == 1) {
    std::fprintf(stderr, "cr_run: unknown option %s (try --help)\n", argv[first]);
    return 2;
  }
  std::string lib = library_path();
  if (lib.empty()) {
    std::fprintf(stderr, "cr_run: cannot find liblazarus_cr.so next to cr_run; set LAZARUS_CR_LIBRARY\n");
    return 127;
  }
  std::string preload = lib;
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += ":" + std::string(old);
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("LAZARUS_CR_RUN", "1", 1);
  // CRIU cannot save a process whose session leader is outside its PID
  // namespace (getsid() == 0 there, e.g. under a container's or CI runner's
  // unshared namespace): lead a session of our own then. setsid() fails for
  // a process-group leader (a shell job), which keeps its visible session.
  if (getsid(0) == 0 && setsid() < 0)
    std::fprintf(stderr, "cr_run: warning: cannot start a session (%s); checkpoints may be refused\n",
                 std::strerror(errno));
  // An ordinary user checkpoints with CRIU in a user namespace of their own
  // (lazarus/userns/job_namespace.h); PROG keeps this pid.
  if (lz::userns::wanted()) {
    lz::Status s = lz::userns::probe();
    if (s.ok()) s = lz::userns::enter(0);
    if (!s.ok())
      std::fprintf(stderr, "cr_run: warning: %s; PROG runs, but cannot be checkpointed\n", s.message().c_str());
  }
  execvp(argv[first], argv + first);
  int err = errno;
  std::fprintf(stderr, "cr_run: cannot run %s: %s\n", argv[first], std::strerror(err));
  return err == ENOENT ? 127 : 126;
}
