// MPI binding: communicator attributes and keyvals (MPI-3.1 section 6.7.2),
// with the MPI-1 names (MPI_Keyval_create, MPI_Attr_*), and the predefined
// attributes of section 8.1.2, answered on every communicator.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "mpi.h"
#include "mpi/attributes.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/keyval.h"
#include "p2p/comm.h"

using lz::rt::Keyval;
using lz::rt::mpi_error;

namespace {

bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }

// A job variable the launcher sets (LZ_APPNUM, LZ_UNIVERSE_SIZE), or `fallback`.
int job_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n >= 0 && n <= 1 << 30 ? static_cast<int>(n) : fallback;
}

// The value a predefined attribute points to. MPI_APPNUM: the rank's program
// in an MPMD launch (0 for a single program); MPI_UNIVERSE_SIZE: the slots
// of the job's hosts, as Open MPI gives them (the world size without a
// launcher).
int* predefined_value(MPI_Comm comm, int keyval) {
  static int tag_ub = MPI_TAG_UB_VALUE, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
             appnum = job_int("LZ_APPNUM", 0), universe = 0, last_code = 0;
  switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;
    case MPI_IO: return &io;  // every rank can do I/O
    case MPI_WTIME_IS_GLOBAL: return &wtime_global;
    case MPI_APPNUM: return &appnum;
    case MPI_UNIVERSE_SIZE:
      universe = job_int("LZ_UNIVERSE_SIZE", lz_mpi_comm_world.size());
      return &universe;
    case MPI_LASTUSEDCODE:
      last_code = lz::rt::last_used_error_code();
      return &last_code;
    default: (void)comm; return nullptr;
  }
}

auto find_attr(MPI_Comm comm, int keyval) {
  return std::find_if(comm->attributes.begin(), comm->attributes.end(),
                      [keyval](const auto& a) { return a.first == keyval; });
}

int keyval_error(MPI_Comm comm, const char* fn, int keyval) {
  return mpi_error(comm, fn, MPI_ERR_KEYVAL,
                   "invalid keyval " + std::to_string(keyval) + " (never created, or freed and no longer in use)");
}

// Runs the delete callback of `comm`'s attribute `it` and removes it.
int delete_one(const char* fn, MPI_Comm comm, std::vector<std::pair<int, void*>>::iterator it) {
  const int keyval = it->first;
  Keyval* kv = lz::rt::keyval_find(keyval, Keyval::Kind::kComm);
  if (kv != nullptr && kv->del != nullptr) {
    if (int e = kv->del(comm, keyval, it->second, kv->extra_state); e != MPI_SUCCESS)
      return mpi_error(comm, fn, e, "the delete callback of keyval " + std::to_string(keyval) + " returned " +
                                        std::to_string(e));
  }
  comm->attributes.erase(it);
  lz::rt::keyval_release(keyval);
  return MPI_SUCCESS;
}

int create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del, int* keyval,
                  void* extra) {
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "keyval is NULL");
  Keyval k;
  k.copy = copy;
  k.del = del;
  k.extra_state = extra;
  *keyval = lz::rt::keyval_create(k);
  return MPI_SUCCESS;
}

int free_keyval(const char* fn, int* keyval) {
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "keyval is NULL");
  if (lz::rt::is_predefined_keyval(*keyval))
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_KEYVAL, "a predefined keyval cannot be freed");
  if (lz::rt::keyval_find(*keyval, Keyval::Kind::kComm) == nullptr) return keyval_error(MPI_COMM_WORLD, fn, *keyval);
  lz::rt::keyval_free_handle(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(const char* fn, MPI_Comm comm, int keyval, void* value) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (lz::rt::is_predefined_keyval(keyval))
    return mpi_error(comm, fn, MPI_ERR_KEYVAL, "predefined attribute " + std::to_string(keyval) + " is read-only");
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kComm) == nullptr) return keyval_error(comm, fn, keyval);
  if (auto it = find_attr(comm, keyval); it != comm->attributes.end())
    if (int e = delete_one(fn, comm, it)) return e;  // the old value's delete callback runs first
  lz::rt::keyval_retain(keyval);
  comm->attributes.emplace_back(keyval, value);
  return MPI_SUCCESS;
}

int get_attr(const char* fn, MPI_Comm comm, int keyval, void* value, int* flag) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (value == nullptr || flag == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (int* p = predefined_value(comm, keyval)) {
    *static_cast<void**>(value) = p;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kComm) == nullptr) return keyval_error(comm, fn, keyval);
  auto it = find_attr(comm, keyval);
  *flag = it != comm->attributes.end();
  if (*flag) *static_cast<void**>(value) = it->second;
  return MPI_SUCCESS;
}

int delete_attr(const char* fn, MPI_Comm comm, int keyval) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (lz::rt::is_predefined_keyval(keyval))
    return mpi_error(comm, fn, MPI_ERR_KEYVAL, "predefined attribute " + std::to_string(keyval) + " is read-only");
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kComm) == nullptr) return keyval_error(comm, fn, keyval);
  auto it = find_attr(comm, keyval);
  if (it == comm->attributes.end())
    return mpi_error(comm, fn, MPI_ERR_ARG, "no attribute of keyval " + std::to_string(keyval) + " on the communicator");
  return delete_one(fn, comm, it);
}

}  // namespace

namespace lz::rt {

int attributes_copy(const char* fn, MPI_Comm from, MPI_Comm to) {
  for (const auto& [keyval, value] : from->attributes) {
    Keyval* kv = keyval_find(keyval, Keyval::Kind::kComm);
    if (kv == nullptr || kv->copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    if (int e = kv->copy(from, keyval, kv->extra_state, value, &out, &flag); e != MPI_SUCCESS)
      return mpi_error(from, fn, e, "the copy callback of keyval " + std::to_string(keyval) + " returned " +
                                        std::to_string(e));
    if (!flag) continue;
    keyval_retain(keyval);
    to->attributes.emplace_back(keyval, out);
  }
  return MPI_SUCCESS;
}

int attributes_delete_all(const char* fn, MPI_Comm comm) {
  while (!comm->attributes.empty())
    if (int e = delete_one(fn, comm, comm->attributes.end() - 1)) return e;
  return MPI_SUCCESS;
}

}  // namespace lz::rt

extern "C" {

int lz_mpi_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int lz_mpi_comm_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int lz_mpi_comm_null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                           int* keyval, void* extra_state) {
  LZ_MPI_ENTRY("MPI_Comm_create_keyval");
  return create_keyval("MPI_Comm_create_keyval", copy_fn, delete_fn, keyval, extra_state);
}
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  LZ_MPI_ENTRY("MPI_Keyval_create");
  return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
int MPI_Comm_free_keyval(int* keyval) {
  LZ_MPI_ENTRY("MPI_Comm_free_keyval");
  return free_keyval("MPI_Comm_free_keyval", keyval);
}
int MPI_Keyval_free(int* keyval) {
  LZ_MPI_ENTRY("MPI_Keyval_free");
  return free_keyval("MPI_Keyval_free", keyval);
}
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  LZ_MPI_ENTRY("MPI_Comm_set_attr");
  return set_attr("MPI_Comm_set_attr", comm, keyval, attribute_val);
}
int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  LZ_MPI_ENTRY("MPI_Attr_put");
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  LZ_MPI_ENTRY("MPI_Comm_get_attr");
  return get_attr("MPI_Comm_get_attr", comm, keyval, attribute_val, flag);
}
int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  LZ_MPI_ENTRY("MPI_Attr_get");
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  LZ_MPI_ENTRY("MPI_Comm_delete_attr");
  return delete_attr("MPI_Comm_delete_attr", comm, keyval);
}
int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  LZ_MPI_ENTRY("MPI_Attr_delete");
  return delete_attr("MPI_Attr_delete", comm, keyval);
}

}  // extern "C"
