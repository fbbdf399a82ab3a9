// MPI binding: info objects (MPI-3.1 chapter 9, and MPI-4.0's
// MPI_Info_create_env), the communicator hints
// (MPI_Comm_set_info / _get_info: none is acted on, so the hints in use are
// always the empty set) and MPI_Comm_split_type (section 6.4.2).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "p2p/comm.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

using lz::rt::mpi_error;

struct lz_mpi_info_s lz_mpi_info_env = {lz_mpi_info_s::kMagic, true, {}};

namespace {

bool info_ok(MPI_Info i) { return i != MPI_INFO_NULL && i->valid(); }

int check_info(const char* fn, MPI_Info info) {
  if (!info_ok(info))
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_INFO, "invalid info object (MPI_INFO_NULL or freed)");
  return MPI_SUCCESS;
}

int check_key(const char* fn, const char* key) {
  if (key == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_INFO_KEY, "key is NULL");
  const size_t n = std::strlen(key);
  if (n == 0 || n > MPI_MAX_INFO_KEY)
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_INFO_KEY,
                     "key of " + std::to_string(n) + " characters; 1 to MPI_MAX_INFO_KEY (" +
                         std::to_string(MPI_MAX_INFO_KEY) + ") allowed");
  return MPI_SUCCESS;
}

auto find(MPI_Info info, const char* key) {
  auto& e = info->entries;
  for (auto it = e.begin(); it != e.end(); ++it)
    if (it->first == key) return it;
  return e.end();
}

}  // namespace

extern "C" {

// MPI-4.0 section 11.4: the keys mpiexec would have had for this process,
// of those this launcher knows: command, argv (the arguments after the
// command, blank-separated), maxprocs (the job's ranks), host and wdir.
// Callable before MPI_Init and after MPI_Finalize: no entry guard, and an
// error is returned, not raised.
int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  if (info == nullptr || argc < 0) return MPI_ERR_ARG;
  auto* i = new lz_mpi_info_s;
  if (argc > 0 && argv != nullptr && argv[0] != nullptr) i->entries.emplace_back("command", argv[0]);
  std::string args;
  for (int k = 1; argv != nullptr && k < argc && argv[k] != nullptr; ++k)
    args += (k > 1 ? " " : "") + std::string(argv[k]);
  if (!args.empty()) i->entries.emplace_back("argv", args);
  const char* np = std::getenv("LZ_SIZE");
  i->entries.emplace_back("maxprocs", np != nullptr && *np != '\0' ? np : "1");
  char buf[4096];
  if (gethostname(buf, sizeof buf) == 0) {
    buf[sizeof buf - 1] = '\0';
    i->entries.emplace_back("host", buf);
  }
  if (getcwd(buf, sizeof buf) != nullptr) i->entries.emplace_back("wdir", buf);
  *info = i;
  return MPI_SUCCESS;
}

int MPI_Info_create(MPI_Info* info) {
  LZ_MPI_ENTRY("MPI_Info_create");
  if (info == nullptr) return mpi_error(MPI_COMM_WORLD, "MPI_Info_create", MPI_ERR_ARG, "info is NULL");
  *info = new lz_mpi_info_s;
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  static constexpr const char* kFn = "MPI_Info_set";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (int e = check_key(kFn, key)) return e;
  if (value == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_INFO_VALUE, "value is NULL");
  const size_t n = std::strlen(value);
  if (n > MPI_MAX_INFO_VAL)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_INFO_VALUE,
                     "value of " + std::to_string(n) + " characters; at most MPI_MAX_INFO_VAL (" +
                         std::to_string(MPI_MAX_INFO_VAL) + ")");
  if (auto it = find(info, key); it != info->entries.end())
    it->second = value;
  else
    info->entries.emplace_back(key, value);
  return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  static constexpr const char* kFn = "MPI_Info_get";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (int e = check_key(kFn, key)) return e;
  if (flag == nullptr || value == nullptr || valuelen < 0)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "value or flag is NULL, or valuelen is negative");
  auto it = find(info, key);
  *flag = it != info->entries.end();
  if (!*flag) return MPI_SUCCESS;
  // valuelen characters at most, then the terminating NUL (MPI: value has
  // room for valuelen + 1); a longer value is truncated.
  const size_t n = std::min(it->second.size(), static_cast<size_t>(valuelen));
  std::memcpy(value, it->second.data(), n);
  value[n] = '\0';
  return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  static constexpr const char* kFn = "MPI_Info_get_valuelen";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (int e = check_key(kFn, key)) return e;
  if (valuelen == nullptr || flag == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "valuelen or flag is NULL");
  auto it = find(info, key);
  *flag = it != info->entries.end();
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  static constexpr const char* kFn = "MPI_Info_get_nkeys";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (nkeys == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "nkeys is NULL");
  *nkeys = static_cast<int>(info->entries.size());
  return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  static constexpr const char* kFn = "MPI_Info_get_nthkey";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (key == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "key is NULL");
  if (n < 0 || n >= static_cast<int>(info->entries.size()))
    return mpi_error(
        MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
        "n = " + std::to_string(n) + " but the info object has " + std::to_string(info->entries.size()) + " keys");
  const std::string& k = info->entries[static_cast<size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  static constexpr const char* kFn = "MPI_Info_delete";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (int e = check_key(kFn, key)) return e;
  auto it = find(info, key);
  if (it == info->entries.end())
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_INFO_NOKEY, std::string("no key '") + key + "' in the info object");
  info->entries.erase(it);
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  static constexpr const char* kFn = "MPI_Info_dup";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_info(kFn, info)) return e;
  if (newinfo == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "newinfo is NULL");
  auto* copy = new lz_mpi_info_s;
  copy->entries = info->entries;
  *newinfo = copy;
  return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info* info) {
  static constexpr const char* kFn = "MPI_Info_free";
  LZ_MPI_ENTRY(kFn);
  if (info == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "info is NULL");
  if (int e = check_info(kFn, *info)) return e;
  if ((*info)->predefined) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
  (*info)->magic = 0;
  delete *info;
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  static constexpr const char* kFn = "MPI_Comm_set_info";
  LZ_MPI_ENTRY(kFn);
  if (comm == nullptr || !comm->valid()) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (!info_ok(info)) return mpi_error(comm, kFn, MPI_ERR_INFO, "invalid info object (MPI_INFO_NULL or freed)");
  return MPI_SUCCESS;  // no hint is acted on (MPI lets an implementation ignore them)
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  static constexpr const char* kFn = "MPI_Comm_get_info";
  LZ_MPI_ENTRY(kFn);
  if (comm == nullptr || !comm->valid()) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (info_used == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "info_used is NULL");
  *info_used = new lz_mpi_info_s;  // the hints in use: none
  return MPI_SUCCESS;
}

// MPI_COMM_TYPE_SHARED: the ranks of this communicator that share this
// rank's host (its memory), ordered by key then by rank.
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Comm_split_type";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (comm == nullptr || !comm->valid()) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm->is_inter()) return mpi_error(comm, kFn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (newcomm == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "newcomm is NULL");
  *newcomm = MPI_COMM_NULL;
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
    return mpi_error(comm, kFn, MPI_ERR_ARG,
                     "split_type " + std::to_string(split_type) + ": MPI_COMM_TYPE_SHARED or MPI_UNDEFINED");
  int color = MPI_UNDEFINED;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    // The color: the lowest communicator rank on this rank's node.
    lz::rt::Engine& eng = lz::rt::runtime().engine();
    const uint64_t mine = eng.peer(lz::rt::runtime().rank()).node_id;
    for (int r = 0; r < comm->size(); ++r)
      if (eng.peer(comm->world_rank_of(r)).node_id == mine) {
        color = r;
        break;
      }
  }
  auto c = lz::rt::comm_split(*comm, color, key);
  if (!c.ok()) return mpi_error(comm, kFn, c.status());
  *newcomm = *c;
  return MPI_SUCCESS;
}

}  // extern "C"
