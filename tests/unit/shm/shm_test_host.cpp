#include "shm_test_host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace lz::test::shm {
namespace {

std::string key_file(const std::string& dir, int rank, std::string_view key) {
  std::string k(key);
  for (char& c : k)
    if (c == '/') c = '_';
  return dir + "/modex." + std::to_string(rank) + "." + k;
}

std::vector<uint64_t> default_nodes(const RankEnv& env, std::vector<uint64_t> nodes) {
  if (nodes.empty()) nodes.assign(static_cast<size_t>(env.size), 1);
  return nodes;
}

}  // namespace

Status FileModex::put(std::string_view key, std::string_view value) {
  const std::string path = key_file(env_.dir, env_.rank, key);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(value.data(), static_cast<std::streamsize>(value.size()));
    if (!f) return IoError("cannot write " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return ErrnoError("rename " + tmp, errno);
  return Status::Ok();
}

StatusOr<std::string> FileModex::get(int rank, std::string_view key) const {
  std::ifstream f(key_file(env_.dir, rank, key), std::ios::binary);
  if (!f) return NotFound("no modex entry " + std::string(key) + " for rank " + std::to_string(rank));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TestHost::TestHost(const RankEnv& env, std::vector<uint64_t> node_of_rank) : env_(env), modex_(env) {
  for (int r = 0; r < env.size; ++r) {
    transport::PeerInfo p;
    p.rank = r;
    p.node_id = node_of_rank[static_cast<size_t>(r)];
    p.host = "node" + std::to_string(p.node_id);
    peers_.push_back(p);
  }
}

void TestHost::deliver(int src, const void* data, size_t len) {
  ++delivered;
  if (on_deliver) on_deliver(src, data, len);
}

ShmRank::ShmRank(RankEnv& e, std::vector<std::pair<std::string, std::string>> extra, std::vector<uint64_t> nodes)
    : env(e), host(e, default_nodes(e, std::move(nodes))), mca(std::move(extra)) {}

Status ShmRank::start() {
  ConfigOptions opt;
  opt.read_default_file = false;
  opt.read_user_file = false;
  opt.load_plugins = false;
  static char* empty_env[] = {nullptr};
  opt.envp = empty_env;  // no stray LZ_MCA_* from the caller's environment
  opt.mca = {{"transport", "shm"}};
  for (auto& m : mca) opt.mca.push_back(m);
  LZ_RETURN_IF_ERROR(reg.configure(opt));
  QueryContext ctx = reg.query_context();
  ctx.rank = env.rank;
  ctx.size = env.size;
  LZ_ASSIGN_OR_RETURN(auto picked, reg.framework("transport")->select(ctx));
  for (auto& q : picked)
    if (std::string(q.entry->desc->name) == "shm") owned = std::move(q.module);
  if (!owned) return NotFound("shm was not selected");
  t = static_cast<transport::Module*>(owned.get());
  LZ_RETURN_IF_ERROR(t->init(host));
  LZ_RETURN_IF_ERROR(host.modex().fence());
  LZ_RETURN_IF_ERROR(t->connect());
  return host.modex().fence();
}

Status ShmRank::send_blocking(int peer, const void* data, size_t len) {
  struct iovec iov{const_cast<void*>(data), len};
  return send_blocking(peer, &iov, 1);
}

Status ShmRank::send_blocking(int peer, const struct iovec* iov, int iovcnt) {
  for (;;) {
    Status s = t->send(peer, iov, iovcnt);
    if (s.code() != Code::kWouldBlock) return s;
    if (t->progress() > 0 || !t->arm_wait()) continue;
    // Ring full and nothing to receive: sleep until the receiver frees space
    // (it rings our doorbell) or sends us something.
    struct pollfd p{t->wait_fd(), POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
  }
}

int ShmRank::wait_until(const std::function<bool()>& pred) {
  int sleeps = 0;
  while (!pred()) {
    if (t->progress() > 0) continue;
    if (pred()) break;
    if (!t->arm_wait()) continue;
    struct pollfd p{t->wait_fd(), POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    ++sleeps;
  }
  return sleeps;
}

}  // namespace lz::test::shm
