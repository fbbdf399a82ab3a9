#include "bootstrap/pmi2_bootstrap.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "bootstrap/pmi2_wire.h"
#include "lazarus/auth.h"
#include "lazarus/log.h"

namespace lz::rt {
namespace {

// Slurm's PMI-2 server takes values of up to 1024 characters and keys of
// up to 64: a value is stored as hex in chunks of this many characters, the
// first prefixed "<chunks>:".
constexpr size_t kChunkChars = 960;
constexpr size_t kMaxKeyChars = 60;

}  // namespace

StatusOr<std::unique_ptr<Pmi2Bootstrap>> Pmi2Bootstrap::connect(int fd, int rank, const std::string& pmi_jobid) {
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // the program's children are no ranks
  std::unique_ptr<Pmi2Bootstrap> b(new Pmi2Bootstrap(fd));
  b->pmi_jobid_ = pmi_jobid;
  // The version line: answered by one line, "cmd=response_to_init ... rc=0".
  LZ_RETURN_IF_ERROR(b->send_all(std::string(pmi2::kInitLine)));
  std::string line;
  for (char c = 0; c != '\n';) {
    LZ_RETURN_IF_ERROR(b->recv_all(&c, 1, false));
    line.push_back(c);
    if (line.size() > 256) break;
  }
  if (line.find("rc=0") == std::string::npos || line.find("pmi_version=2") == std::string::npos)
    return Unavailable("PMI_FD: the process manager did not agree on PMI-2 (it answered '" + line +
                       "'); start the program with srun --mpi=pmi2, or with lazarus run");
  LZ_ASSIGN_OR_RETURN(
      auto init,
      b->call("fullinit", {{"pmijobid", pmi_jobid}, {"pmirank", std::to_string(rank)}, {"threaded", "FALSE"}}));
  JobInfo& job = b->job_;
  job.rank = std::atoi(init["rank"].c_str());
  job.size = std::atoi(init["size"].c_str());
  if (job.size < 1 || job.rank < 0 || job.rank >= job.size)
    return DataLoss("PMI-2 fullinit gave rank " + init["rank"] + " of size " + init["size"]);
  job.name_job("pmi2-", pmi_jobid);

  LZ_ASSIGN_OR_RETURN(auto attr, b->call("info-getjobattr", {{"key", "PMI_process_mapping"}}));
  if (attr["found"] != "TRUE") return DataLoss("PMI-2: the process manager has no PMI_process_mapping");
  LZ_ASSIGN_OR_RETURN(std::vector<int> nodes, pmi2::node_of_rank(attr["value"], job.size));
  job.node_of_rank.assign(nodes.begin(), nodes.end());
  job.place_on_nodes();
  job.hostname = host_name_from("SLURMD_NODENAME");  // Slurm's name of the node (slurmd -N)

  // Start-up fence: host names, and the secret rank 0 draws.
  LZ_RETURN_IF_ERROR(b->put("lz.host", job.hostname));
  if (job.rank == 0) LZ_RETURN_IF_ERROR(b->put("lz.secret", auth::new_secret()));
  LZ_RETURN_IF_ERROR(b->fence());
  LZ_ASSIGN_OR_RETURN(b->secret_, b->get(0, "lz.secret"));
  for (int r = 0; r < job.size; ++r) {
    LZ_ASSIGN_OR_RETURN(std::string h, b->get(r, "lz.host"));
    job.hostname_of_rank.push_back(std::move(h));
  }
  log::set_identity("lazarus[rank " + std::to_string(job.rank) + "]");
  return b;
}

Pmi2Bootstrap::~Pmi2Bootstrap() {
  if (fd_ >= 0) close(fd_);
}

Status Pmi2Bootstrap::send_all(const std::string& bytes) const {
  for (size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("PMI-2: writing to the process manager (PMI_FD " + std::to_string(fd_) + ")", errno);
    at += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status Pmi2Bootstrap::recv_all(char* at, size_t len, bool wait) const {
  while (len > 0) {
    if (wait && reply_wait_) reply_wait_(fd_);
    const ssize_t n = ::recv(fd_, at, len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n == 0) return {Code::kAborted, "PMI-2: the process manager closed PMI_FD (the job step ended)"};
    if (n < 0) return ErrnoError("PMI-2: reading from the process manager (PMI_FD " + std::to_string(fd_) + ")", errno);
    at += n;
    len -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

StatusOr<std::map<std::string, std::string>> Pmi2Bootstrap::call(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& pairs, bool wait) const {
  LZ_RETURN_IF_ERROR(send_all(pmi2::command(name, pairs)));
  char len[7] = {};
  LZ_RETURN_IF_ERROR(recv_all(len, 6, wait));
  const long n = std::strtol(len, nullptr, 10);
  if (n <= 0 || n > (1 << 20)) return DataLoss("PMI-2: a reply of length '" + std::string(len) + "'");
  std::string body(static_cast<size_t>(n), '\0');
  LZ_RETURN_IF_ERROR(recv_all(body.data(), body.size(), false));
  LZ_ASSIGN_OR_RETURN(auto reply, pmi2::parse(body));
  if (reply["cmd"] != std::string(name) + "-response")
    return DataLoss("PMI-2: '" + std::string(name) + "' answered by '" + body + "'");
  if (reply["rc"] != "0")
    return Internal("PMI-2: '" + std::string(name) + "' failed with rc " + reply["rc"] +
                    (reply.count("errmsg") ? ": " + reply["errmsg"] : std::string()));
  return reply;
}

std::string Pmi2Bootstrap::kvs_key(int rank, std::string_view key, int chunk) {
  std::string k = std::to_string(rank) + "/";
  if (key.size() + k.size() + 8 <= kMaxKeyChars) {
    k += key;
  } else {  // a long key: its FNV-1a hash
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    k += "#" + pmi2::to_hex(std::string_view(reinterpret_cast<const char*>(&h), sizeof h));
  }
  if (chunk > 0) k += "#" + std::to_string(chunk);
  return k;
}

Status Pmi2Bootstrap::put(std::string_view key, std::string_view value) {
  const std::string hex = pmi2::to_hex(value);
  const size_t chunks = hex.empty() ? 1 : (hex.size() + kChunkChars - 1) / kChunkChars;
  for (size_t c = 0; c < chunks; ++c) {
    std::string v = hex.substr(c * kChunkChars, kChunkChars);
    if (c == 0) v = std::to_string(chunks) + ":" + v;
    LZ_RETURN_IF_ERROR(call("kvs-put", {{"key", kvs_key(job_.rank, key, static_cast<int>(c))}, {"value", v}}).status());
  }
  return Status::Ok();
}

Status Pmi2Bootstrap::fence() {
  cache_.clear();
  return call("kvs-fence", {}, true).status();
}

StatusOr<std::string> Pmi2Bootstrap::get(int rank, std::string_view key) const {
  if (rank < 0 || rank >= job_.size)
    return InvalidArgument("modex get: rank " + std::to_string(rank) + " outside a job of size " +
                           std::to_string(job_.size));
  if (auto it = cache_.find(std::make_pair(rank, std::string(key))); it != cache_.end()) return it->second;
  std::string hex;
  size_t chunks = 1;
  for (size_t c = 0; c < chunks; ++c) {
    LZ_ASSIGN_OR_RETURN(auto reply, call("kvs-get", {{"jobid", pmi_jobid_},
                                                     {"srcid", std::to_string(rank)},
                                                     {"key", kvs_key(rank, key, static_cast<int>(c))}}));
    if (reply["found"] != "TRUE")
      return NotFound("modex: rank " + std::to_string(rank) + " published no '" + std::string(key) + "'");
    std::string v = reply["value"];
    if (c == 0) {
      const size_t colon = v.find(':');
      if (colon == std::string::npos) return DataLoss("PMI-2: the entry '" + std::string(key) + "' has no chunk count");
      chunks = std::strtoul(v.c_str(), nullptr, 10);
      v.erase(0, colon + 1);
    }
    hex += v;
  }
  LZ_ASSIGN_OR_RETURN(std::string value, pmi2::from_hex(hex));
  cache_[std::make_pair(rank, std::string(key))] = value;
  return value;
}

Status Pmi2Bootstrap::abort(int code, std::string_view reason) {
  std::string msg = "code " + std::to_string(code) + ": ";
  for (char c : reason) msg.push_back(c == ';' || c == '\n' ? ',' : c);
  log::error("rank %d aborted the job with code %d: %.*s", job_.rank, code, static_cast<int>(reason.size()),
             reason.data());
  return send_all(pmi2::command("abort", {{"isworld", "TRUE"}, {"msg", msg}}));
}

Status Pmi2Bootstrap::finalize() {
  if (finalized_) return Status::Ok();
  finalized_ = true;
  return call("finalize", {}).status();
}

}  // namespace lz::rt
