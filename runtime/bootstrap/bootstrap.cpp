// Bootstrap::from_environment(): reads what the launcher handed the rank
// (see bootstrap.h) and picks the singleton, the OOB, the PMIx or the PMI-2
// implementation.
#include "bootstrap/bootstrap.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "bootstrap/oob_bootstrap.h"
#include "bootstrap/pmi2_bootstrap.h"
#include "bootstrap/singleton_bootstrap.h"
#include "lazarus/companion_library.h"
#include "lazarus/log.h"

namespace lz::rt {
namespace {

inline constexpr size_t kMaxSecretBytes = 4096;

StatusOr<long long> env_int(const char* name, bool required, long long fallback, long long lo, long long hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    if (required) return InvalidArgument(std::string(name) + " is not set (was this process started by lazarus run?)");
    return fallback;
  }
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || x < lo || x > hi)
    return InvalidArgument(std::string(name) + "='" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
  return x;
}

// Reads the secret from the inherited pipe, then closes it and removes
// LZ_SECRET_FD, so nothing of the secret's channel outlives start-up.
StatusOr<std::string> read_secret() {
  LZ_ASSIGN_OR_RETURN(long long fd, env_int("LZ_SECRET_FD", true, -1, 0, INT_MAX));
  std::string secret;
  char buf[256];
  for (;;) {
    ssize_t n = read(static_cast<int>(fd), buf, sizeof buf);
    if (n > 0) {
      secret.append(buf, static_cast<size_t>(n));
      if (secret.size() > kMaxSecretBytes) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      unsetenv("LZ_SECRET_FD");
      return ErrnoError("reading the job secret from LZ_SECRET_FD=" + std::to_string(fd), err);
    }
    break;
  }
  close(static_cast<int>(fd));
  unsetenv("LZ_SECRET_FD");
  if (secret.empty() || secret.size() > kMaxSecretBytes)
    return PermissionDenied("LZ_SECRET_FD did not deliver a job secret of 1 to " + std::to_string(kMaxSecretBytes) +
                            " bytes");
  return secret;
}

double connect_timeout() {
  // The launcher forwards every non-default parameter as LZ_MCA_<name>, so the
  // environment holds the job's value whatever its original source.
  const char* v = std::getenv("LZ_MCA_oob_connect_timeout");
  if (v != nullptr) {
    char* end = nullptr;
    double d = std::strtod(v, &end);
    if (end != v && *end == '\0' && d > 0) return d;
  }
  return 60.0;
}

// Started by a PMIx server (srun --mpi=pmix, Open MPI's mpirun): the
// PMIx bootstrap lives in its own library, linked with libpmix
// (bootstrap/pmix/pmix_bootstrap.h).
StatusOr<std::unique_ptr<Bootstrap>> pmix_bootstrap(const char* nspace) {
  auto lib = CompanionLibrary::open("bootstrap", "liblazarus_pmix.so");
  if (!lib.ok())
    return Unavailable("this process was started by a PMIx server (PMIX_NAMESPACE=" + std::string(nspace) +
                       "), but Lazarus' PMIx bootstrap cannot be loaded (" + lib.status().message() +
                       "); build Lazarus with libpmix-dev installed, or start the program with srun --mpi=pmi2 "
                       "or lazarus run");
  Bootstrap* (*make)(Status*) = nullptr;
  LZ_RETURN_IF_ERROR(lib->find("lz_pmix_bootstrap", &make));
  Status error;
  Bootstrap* b = make(&error);
  if (b == nullptr) return error;
  return std::unique_ptr<Bootstrap>(b);
}

}  // namespace

void JobInfo::place_on_nodes() {
  node_id = node_of_rank[static_cast<size_t>(rank)];
  local_size = 0;
  for (int r = 0; r < size; ++r) {
    if (node_of_rank[static_cast<size_t>(r)] != node_id) continue;
    if (r == rank) local_rank = local_size;
    ++local_size;
  }
}

void JobInfo::name_job(std::string_view prefix, std::string_view id) {
  job_id = prefix;
  for (char c : id.substr(0, 40)) job_id.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  setenv("LZ_JOB_ID", job_id.c_str(), 0);
}

std::string host_name_from(const char* var) {
  if (const char* h = std::getenv(var); h != nullptr && *h != '\0') return h;
  char host[HOST_NAME_MAX + 1] = "localhost";
  gethostname(host, sizeof host);
  host[HOST_NAME_MAX] = '\0';
  return host;
}

StatusOr<std::unique_ptr<Bootstrap>> Bootstrap::from_environment() {
  const char* addr = std::getenv("LZ_OOB_ADDR");
  const char* pmix_ns = std::getenv("PMIX_NAMESPACE");
  const char* pmi_fd = std::getenv("PMI_FD");
  auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
  // The parameter `bootstrap` (oob/oob_params.cpp): the environment is all a
  // rank has this early, so it is read from there.
  const char* chosen = std::getenv("LZ_MCA_bootstrap");
  std::string how = set(chosen) ? chosen : "auto";
  if (how == "auto") how = set(addr) ? "oob" : set(pmix_ns) ? "pmix" : set(pmi_fd) ? "pmi2" : "singleton";
  if (how == "singleton") return std::unique_ptr<Bootstrap>(new SingletonBootstrap());
  if (how == "pmix") {
    if (!set(pmix_ns))
      return InvalidArgument("bootstrap=pmix, but PMIX_NAMESPACE is not set (no PMIx server started this process)");
    return pmix_bootstrap(pmix_ns);
  }
  if (how == "pmi2") {
    // Started by a PMI-2 process manager (srun --mpi=pmi2, MPICH's mpiexec).
    if (!set(pmi_fd))
      return InvalidArgument("bootstrap=pmi2, but PMI_FD is not set (no PMI-2 manager started this process)");
    LZ_ASSIGN_OR_RETURN(long long fd, env_int("PMI_FD", true, -1, 0, INT_MAX));
    LZ_ASSIGN_OR_RETURN(long long rank, env_int("PMI_RANK", true, 0, 0, INT_MAX));
    const char* id = std::getenv("PMI_JOBID");
    LZ_ASSIGN_OR_RETURN(auto b,
                        Pmi2Bootstrap::connect(static_cast<int>(fd), static_cast<int>(rank), set(id) ? id : "0"));
    unsetenv("PMI_FD");  // the socket is this process's, not its children's
    return std::unique_ptr<Bootstrap>(std::move(b));
  }
  if (how != "oob")
    return InvalidArgument("bootstrap='" + how + "' is not one of auto, oob, pmix, pmi2, singleton (LZ_MCA_bootstrap)");
  if (!set(addr))
    return InvalidArgument("bootstrap=oob, but LZ_OOB_ADDR is not set (start the program with lazarus run)");

  JobInfo job;
  const char* id = std::getenv("LZ_JOB_ID");
  if (id == nullptr || *id == '\0') return InvalidArgument("LZ_OOB_ADDR is set but LZ_JOB_ID is not");
  job.job_id = id;
  LZ_ASSIGN_OR_RETURN(long long size, env_int("LZ_SIZE", true, 1, 1, 1 << 20));
  LZ_ASSIGN_OR_RETURN(long long rank, env_int("LZ_RANK", true, 0, 0, size - 1));
  LZ_ASSIGN_OR_RETURN(long long lsize, env_int("LZ_LOCAL_SIZE", false, 1, 1, size));
  LZ_ASSIGN_OR_RETURN(long long lrank, env_int("LZ_LOCAL_RANK", false, 0, 0, lsize - 1));
  LZ_ASSIGN_OR_RETURN(long long node, env_int("LZ_NODE_ID", false, 0, 0, LLONG_MAX));
  job.size = static_cast<int>(size);
  job.rank = static_cast<int>(rank);
  job.local_size = static_cast<int>(lsize);
  job.local_rank = static_cast<int>(lrank);
  job.node_id = static_cast<uint64_t>(node);
  job.hostname = host_name_from("LZ_HOSTNAME");
  LZ_ASSIGN_OR_RETURN(std::string secret, read_secret());
  log::set_identity("lazarus[rank " + std::to_string(job.rank) + "]");
  // A process started to take over a rank that moved (cr=app migration).
  const char* join = std::getenv("LZ_CR_APP_JOIN");
  LZ_ASSIGN_OR_RETURN(auto b, OobBootstrap::connect(std::move(job), std::move(secret), addr, connect_timeout(),
                                                    join != nullptr && *join != '\0'));
  return std::unique_ptr<Bootstrap>(std::move(b));
}

}  // namespace lz::rt
