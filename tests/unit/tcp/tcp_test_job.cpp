#include "tcp_test_job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "lazarus/auth.h"
#include "lazarus/log.h"

namespace lz::test::tcp {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string make_tempdir() {
  char tmpl[] = "/tmp/lz_tcp_test.XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  if (d == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  return d;
}

void remove_tree(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
}

}  // namespace

const std::string& test_secret() {
  static const std::string s = auth::new_secret();
  return s;
}

// ---- FileModex ----------------------------------------------------------------

std::string FileModex::path(const std::string& dir, int rank, std::string_view key) {
  return dir + "/modex." + std::to_string(rank) + "." + std::string(key);
}

Status FileModex::put(std::string_view key, std::string_view value) {
  const std::string p = path(dir_, rank_, key);
  const std::string tmp = p + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(value.data(), static_cast<std::streamsize>(value.size()));
    if (!out) return IoError("cannot write " + tmp);
  }
  if (::rename(tmp.c_str(), p.c_str()) != 0) return ErrnoError("rename " + tmp, errno);
  return Status::Ok();
}

Status FileModex::fence() {
  const char b = 'B';
  char reply = 0;
  if (!write_all(ctl_, &b, 1) || !read_all(ctl_, &reply, 1) || reply != 'G')
    return Status(Code::kAborted, "test job: barrier failed");
  return Status::Ok();
}

StatusOr<std::string> FileModex::get(int rank, std::string_view key) const {
  const std::string p = path(dir_, rank, key);
  if (::access(p.c_str(), R_OK) != 0) return NotFound(p);
  return read_file(p);
}

// ---- TestHost -----------------------------------------------------------------

TestHost::TestHost(int rank, int size, Modex* modex, std::string secret)
    : rank_(rank), size_(size), modex_(modex), secret_(std::move(secret)) {
  for (int r = 0; r < size; ++r) peers_.push_back({r, "localhost", 1});
}

void TestHost::deliver(int src, const void* data, size_t len) {
  if (on_deliver) on_deliver(src, data, len);
}

void TestHost::peer_failed(int rank, const Status& why) {
  if (on_failed) {
    on_failed(rank, why);
    return;
  }
  TCP_CHECK(false, "unexpected peer_failed(%d): %s", rank, why.to_string().c_str());
}

// ---- Rank -----------------------------------------------------------------------

void Rank::start() {
  Status s = module_->init(*host_);
  TCP_CHECK(s.ok(), "init: %s", s.to_string().c_str());
  s = modex_->fence();
  TCP_CHECK(s.ok(), "fence: %s", s.to_string().c_str());
  s = module_->connect();
  TCP_CHECK(s.ok(), "connect: %s", s.to_string().c_str());
}

void Rank::barrier() {
  Status s = modex_->fence();
  TCP_CHECK(s.ok(), "barrier: %s", s.to_string().c_str());
}

void Rank::kill_rank(int victim) {
  const char msg[2] = {'K', static_cast<char>(victim)};
  char reply = 0;
  TCP_CHECK(write_all(ctl_fd, msg, 2) && read_all(ctl_fd, &reply, 1) && reply == 'k', "kill request failed");
}

void Rank::send_blocking(int peer, const struct iovec* iov, int iovcnt) {
  const double deadline = now_s() + 120;
  for (;;) {
    Status s = module_->send(peer, iov, iovcnt);
    if (s.ok()) return;
    TCP_CHECK(s.code() == Code::kWouldBlock, "send to %d: %s", peer, s.to_string().c_str());
    module_->progress();
    TCP_CHECK(now_s() < deadline, "send to %d stayed blocked", peer);
  }
}

void Rank::progress_until(const std::function<bool()>& pred, const char* what, double timeout_s) {
  const double deadline = now_s() + timeout_s;
  while (!pred()) {
    if (module_->progress() == 0) {
      // Exercise the wait_fd contract instead of spinning hot.
      pollfd p{module_->wait_fd(), POLLIN, 0};
      if (module_->arm_wait()) ::poll(&p, 1, 10);
    }
    TCP_CHECK(now_s() < deadline, "timed out waiting for %s", what);
  }
}

void Rank::finish() {
  barrier();
  Status s = module_->finalize();
  TCP_CHECK(s.ok(), "finalize: %s", s.to_string().c_str());
}

std::string Rank::stderr_text() const {
  std::fflush(stderr);
  return read_file(dir + "/stderr." + std::to_string(rank));
}

// ---- run_job -----------------------------------------------------------------------

namespace {

[[noreturn]] void rank_main(int r, int n, const std::string& dir, int ctl, const JobOptions& opt, const RankFn& fn) {
  Rank me;
  me.rank = r;
  me.size = n;
  me.dir = dir;
  me.ctl_fd = ctl;
  log::set_identity("rank " + std::to_string(r));
  me.registry_ = std::make_unique<Registry>();
  ConfigOptions co;
  co.read_default_file = false;
  co.read_user_file = false;
  co.load_plugins = false;
  co.mca.push_back({"transport", "tcp"});
  for (const auto& kv : opt.mca) co.mca.push_back(kv);
  Status s = me.registry_->configure(co);
  TCP_CHECK(s.ok(), "configure: %s", s.to_string().c_str());
  QueryContext ctx = me.registry_->query_context();
  ctx.rank = r;
  ctx.size = n;
  auto picked = me.registry_->framework("transport")->select(ctx);
  TCP_CHECK(picked.ok(), "select: %s", picked.status().to_string().c_str());
  for (auto& q : *picked)
    if (q.module && std::string(q.entry->desc->name) == "tcp") me.owned_ = std::move(q.module);
  TCP_CHECK(me.owned_ != nullptr, "transport/tcp was not selected");
  me.module_ = static_cast<transport::Module*>(me.owned_.get());
  me.tcp_ = dynamic_cast<transport::tcp::TcpTransport*>(me.module_);
  TCP_CHECK(me.tcp_ != nullptr, "selected module is not a TcpTransport");
  me.modex_ = std::make_unique<FileModex>(dir, r, ctl);
  me.host_ = std::make_unique<TestHost>(r, n, me.modex_.get(), test_secret());
  int code = fn(me);
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace

JobResult run_job(int n, const JobOptions& opt, const RankFn& fn, const std::vector<HelperFn>& helpers) {
  (void)test_secret();  // generated once, before fork, so every rank shares it
  const std::string dir = make_tempdir();
  std::fflush(stdout);
  std::fflush(stderr);

  struct Proc {
    pid_t pid = -1;
    int ctl = -1;  // parent's end (ranks only)
    bool rank = true;
    int index = 0;
    bool exited = false;
    bool killed_on_purpose = false;
    int status = 0;
    bool at_barrier = false;
  };
  std::vector<Proc> procs;
  auto spawn = [&](bool is_rank, int index, const std::function<void(int ctl)>& body) {
    int sv[2] = {-1, -1};
    if (is_rank && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
    pid_t pid = ::fork();
    if (pid == 0) {
      const std::string err = dir + (is_rank ? "/stderr." : "/helper_stderr.") + std::to_string(index);
      int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
      if (fd >= 0) {
        ::dup2(fd, 2);
        ::close(fd);
      }
      for (auto& p : procs)
        if (p.ctl >= 0) ::close(p.ctl);
      if (is_rank) ::close(sv[0]);
      body(is_rank ? sv[1] : -1);
      std::_Exit(0);
    }
    Proc p;
    p.pid = pid;
    p.rank = is_rank;
    p.index = index;
    if (is_rank) {
      ::close(sv[1]);
      p.ctl = sv[0];
    }
    procs.push_back(p);
  };
  for (int r = 0; r < n; ++r) spawn(true, r, [&, r](int ctl) { rank_main(r, n, dir, ctl, opt, fn); });
  for (size_t h = 0; h < helpers.size(); ++h)
    spawn(false, static_cast<int>(h), [&, h](int) { std::_Exit(helpers[h](dir)); });

  const double deadline = now_s() + opt.timeout_s;
  bool timed_out = false;
  auto live_ranks_waiting = [&]() {
    for (auto& p : procs)
      if (p.rank && !p.exited && !p.killed_on_purpose && !p.at_barrier) return false;
    return true;
  };
  for (;;) {
    // Reap.
    bool all_exited = true;
    for (auto& p : procs) {
      if (p.exited) continue;
      int st;
      if (::waitpid(p.pid, &st, WNOHANG) == p.pid) {
        p.exited = true;
        p.status = st;
        if (p.ctl >= 0) {
          ::close(p.ctl);
          p.ctl = -1;
        }
      } else {
        all_exited = false;
      }
    }
    if (all_exited) break;
    if (now_s() > deadline) {
      timed_out = true;
      for (auto& p : procs)
        if (!p.exited) ::kill(p.pid, SIGKILL);
      for (auto& p : procs)
        if (!p.exited) {
          ::waitpid(p.pid, &p.status, 0);
          p.exited = true;
        }
      break;
    }
    std::vector<pollfd> fds;
    std::vector<Proc*> who;
    for (auto& p : procs)
      if (p.ctl >= 0) {
        fds.push_back({p.ctl, POLLIN, 0});
        who.push_back(&p);
      }
    ::poll(fds.data(), fds.size(), 20);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char c;
      if (::read(fds[i].fd, &c, 1) != 1) {
        ::close(who[i]->ctl);
        who[i]->ctl = -1;
        continue;
      }
      if (c == 'B') {
        who[i]->at_barrier = true;
      } else if (c == 'K') {
        char victim = 0;
        if (!read_all(fds[i].fd, &victim, 1)) continue;
        for (auto& p : procs)
          if (p.rank && p.index == victim && !p.exited) {
            p.killed_on_purpose = true;
            ::kill(p.pid, SIGKILL);
            ::waitpid(p.pid, &p.status, 0);
            p.exited = true;
            if (p.ctl >= 0) {
              ::close(p.ctl);
              p.ctl = -1;
            }
          }
        const char k = 'k';
        write_all(fds[i].fd, &k, 1);
      }
    }
    if (live_ranks_waiting()) {
      bool any = false;
      for (auto& p : procs)
        if (p.rank && p.at_barrier) {
          any = true;
          p.at_barrier = false;
          const char g = 'G';
          if (p.ctl >= 0) write_all(p.ctl, &g, 1);
        }
      (void)any;
    }
  }

  JobResult res;
  res.ok_ = !timed_out;
  std::string report = timed_out ? "job timed out\n" : "";
  for (auto& p : procs) {
    std::string what = (p.rank ? "rank " : "helper ") + std::to_string(p.index) + ": ";
    bool good;
    if (p.killed_on_purpose) {
      good = WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL;
      what += "killed on purpose";
    } else if (WIFEXITED(p.status)) {
      good = WEXITSTATUS(p.status) == 0;
      what += "exit " + std::to_string(WEXITSTATUS(p.status));
    } else {
      good = false;
      what += "signal " + std::to_string(WIFSIGNALED(p.status) ? WTERMSIG(p.status) : -1);
    }
    if (!good) res.ok_ = false;
    report += what + "\n";
  }
  for (auto& p : procs) {
    const std::string f = dir + (p.rank ? "/stderr." : "/helper_stderr.") + std::to_string(p.index);
    const std::string text = read_file(f);
    if (!text.empty()) report += "--- stderr of " + std::string(p.rank ? "rank " : "helper ") +
                                 std::to_string(p.index) + " ---\n" + text;
  }
  for (auto& p : procs)
    if (p.ctl >= 0) ::close(p.ctl);
  res.report = report;
  if (std::getenv("LZ_TEST_VERBOSE") != nullptr) std::fprintf(stderr, "%s", report.c_str());
  remove_tree(dir);
  return res;
}

}  // namespace lz::test::tcp
