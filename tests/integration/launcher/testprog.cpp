// A rank program for the launcher tests: uses Bootstrap directly (the MPI
// binding is tested elsewhere). Every rank puts a value, fences, checks every
// peer's value, barriers and finalizes; options add the behaviours the tests
// need:
//   --rounds K            fence rounds (default 2)
//   --exit R:C            rank R exits with code C after the modex
//   --kill R              rank R raises SIGKILL after the modex
//   --abort R:C           rank R calls abort(C) and then waits to be killed
//   --exit0-early R       rank R exits 0 without finalize
//   --sleep               every rank sleeps forever after the modex
//   --print-env VAR       print "rank R VAR=<value>"
//   --secret-check        check the secret is in no cmdline/environ of the rank and launcher
//   --wait-file PATH      rank 0 waits for PATH to exist before the final barrier
//   --reconnect           disconnect() and reconnect() between two fences
//   --reconnect-early     the same, holding the old connection open (a dup of
//                         its fd) until reconnect() returned: the launcher sees
//                         the new connection before the old one's end
//   --partial             write a last line without a newline
//   --stderr              every rank also writes a line to stderr
//   --spawn N:CMD         rank 0 spawns a job of N ranks of CMD after the modex
//                         (Bootstrap::spawn) and prints "rank 0: spawn ok" or
//                         "rank 0: spawn refused: <message>"
//   --spawn-arg A         an argument of CMD (repeatable)
//   --spawn-env NAME=V    an environment entry of the spawned job (repeatable)
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"

namespace {

int die(const char* what, const lz::Status& s) {
  std::fprintf(stderr, "testprog: %s: %s\n", what, s.to_string().c_str());
  return 99;
}

bool parse_pair(const char* text, int* a, int* b) { return std::sscanf(text, "%d:%d", a, b) == 2; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::string expected_value(int rank, int round) {
  // Long enough that fences carry real payloads.
  return "rank-" + std::to_string(rank) + "-round-" + std::to_string(round) + "-" + std::string(100 + rank, 'x');
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 2, exit_rank = -1, exit_code = 0, kill_rank = -1, abort_rank = -1, abort_code = 0, early_rank = -1;
  bool sleep_forever = false, secret_check = false, reconnect = false, partial = false, to_stderr = false;
  bool reconnect_early = false;
  const char* print_env = nullptr;
  const char* wait_file = nullptr;
  lz::oob::SpawnRequestMsg spawn;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--rounds") rounds = std::atoi(next());
    else if (a == "--exit") parse_pair(next(), &exit_rank, &exit_code);
    else if (a == "--kill") kill_rank = std::atoi(next());
    else if (a == "--abort") parse_pair(next(), &abort_rank, &abort_code);
    else if (a == "--exit0-early") early_rank = std::atoi(next());
    else if (a == "--sleep") sleep_forever = true;
    else if (a == "--print-env") print_env = next();
    else if (a == "--secret-check") secret_check = true;
    else if (a == "--wait-file") wait_file = next();
    else if (a == "--reconnect") reconnect = true;
    else if (a == "--reconnect-early") reconnect = reconnect_early = true;
    else if (a == "--partial") partial = true;
    else if (a == "--stderr") to_stderr = true;
    else if (a == "--spawn") {
      const std::string v = next();
      lz::oob::SpawnApp app;
      app.maxprocs = std::atoi(v.c_str());
      app.command = v.substr(v.find(':') + 1);
      spawn.apps.push_back(app);
    } else if (a == "--spawn-arg" && !spawn.apps.empty()) spawn.apps.back().argv.push_back(next());
    else if (a == "--spawn-env") spawn.env.push_back(next());
    else {
      std::fprintf(stderr, "testprog: unknown option %s\n", a.c_str());
      return 98;
    }
  }

  auto boot_or = lz::rt::Bootstrap::from_environment();
  if (!boot_or.ok()) return die("from_environment", boot_or.status());
  auto& boot = *boot_or;
  const lz::rt::JobInfo& job = boot->job();
  const int rank = job.rank, size = job.size;

  if (secret_check) {
    const std::string& secret = boot->secret();
    bool ok = secret.size() >= 16 && std::getenv("LZ_SECRET_FD") == nullptr;
    for (const std::string& who : {std::string("self"), std::to_string(getppid())}) {
      for (const char* file : {"cmdline", "environ"}) {
        std::string text = slurp("/proc/" + who + "/" + file);
        if (text.find(secret) != std::string::npos || text.find(hex(secret)) != std::string::npos) {
          std::printf("rank %d: SECRET EXPOSED in /proc/%s/%s\n", rank, who.c_str(), file);
          ok = false;
        }
      }
    }
    if (ok) std::printf("rank %d: secret not exposed\n", rank);
  }
  if (print_env) {
    const char* v = std::getenv(print_env);
    std::printf("rank %d %s=%s\n", rank, print_env, v ? v : "(unset)");
  }

  for (int round = 0; round < rounds; ++round) {
    if (reconnect && round == 1) {
      const int old = reconnect_early ? dup(boot->control_fd()) : -1;
      if (auto s = boot->disconnect(); !s.ok()) return die("disconnect", s);
      if (boot->control_fd() != -1 || boot->connected()) return die("disconnect", lz::Internal("still connected"));
      if (auto s = boot->reconnect(); !s.ok()) return die("reconnect", s);
      if (old >= 0) close(old);
    }
    if (auto s = boot->put("test.value", expected_value(rank, round)); !s.ok()) return die("put", s);
    if (auto s = boot->fence(); !s.ok()) return die("fence", s);
    for (int p = 0; p < size; ++p) {
      auto v = boot->get(p, "test.value");
      if (!v.ok()) return die("get", v.status());
      if (*v != expected_value(p, round)) {
        std::fprintf(stderr, "rank %d: wrong modex value from rank %d: %s\n", rank, p, v->c_str());
        return 97;
      }
    }
  }
  if (static_cast<int>(job.node_of_rank.size()) != size || static_cast<int>(job.hostname_of_rank.size()) != size)
    return die("job info", lz::Internal("node_of_rank/hostname_of_rank not filled"));
  std::printf("rank %d of %d: modex ok with %d peers on %s\n", rank, size, size, job.hostname.c_str());
  std::fflush(stdout);
  if (to_stderr) std::fprintf(stderr, "rank %d says hello on stderr\n", rank);
  if (rank == 0 && !spawn.apps.empty()) {
    const lz::Status s = boot->spawn(spawn);
    if (s.ok())
      std::printf("rank 0: spawn ok\n");
    else
      std::printf("rank 0: spawn refused: %s\n", s.message().c_str());
    std::fflush(stdout);
  }

  if (rank == exit_rank) {
    std::fprintf(stderr, "rank %d: exiting with code %d\n", rank, exit_code);
    return exit_code;
  }
  if (rank == kill_rank) raise(SIGKILL);
  if (rank == early_rank) std::exit(0);
  if (rank == abort_rank) {
    if (auto s = boot->abort(abort_code, "test abort from rank " + std::to_string(rank)); !s.ok())
      return die("abort", s);
    for (;;) pause();
  }
  if (sleep_forever)
    for (;;) pause();
  if (rank == 0 && wait_file != nullptr)
    while (access(wait_file, F_OK) != 0) usleep(20000);

  if (auto s = boot->barrier(); !s.ok()) return die("barrier", s);
  if (partial) {
    std::printf("rank %d partial line", rank);
    std::fflush(stdout);
  }
  if (auto s = boot->finalize(); !s.ok()) return die("finalize", s);
  return 0;
}
