// MPI binding: datatype attributes and their keyvals (MPI-3.1 section
// 6.7.4). The keyvals share the registry (and handle space) of the
// communicators' (mpi/keyval.h), of kind kType; the attributes of a type are
// kept here, by handle, from the first MPI_Type_set_attr to MPI_Type_free.
#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mpi.h"
#include "mpi/datatype/type_attributes.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/keyval.h"

namespace {

using lz::rt::Keyval;
using lz::rt::mpi_error;
using Attributes = std::vector<std::pair<int, void*>>;

// The attributes of each type that has any. Entry points are serialized
// when checkpointing is on, not otherwise (MPI_THREAD_MULTIPLE): a lock.
std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<MPI_Datatype, Attributes>& table() {
  static std::unordered_map<MPI_Datatype, Attributes> t;
  return t;
}

Keyval* type_keyval(int k) { return lz::rt::keyval_find(k, Keyval::Kind::kType); }

int keyval_error(const char* fn, int keyval) {
  return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_KEYVAL,
                   "invalid datatype keyval " + std::to_string(keyval) +
                       " (never made by MPI_Type_create_keyval, or freed and no longer in use)");
}

int type_error(const char* fn) {
  return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
}

// The attribute of `keyval` on `type`: its list and position, or null.
std::pair<Attributes*, Attributes::iterator> find(MPI_Datatype type, int keyval) {
  auto it = table().find(type);
  if (it == table().end()) return {nullptr, {}};
  auto at = std::find_if(it->second.begin(), it->second.end(), [keyval](const auto& a) { return a.first == keyval; });
  if (at == it->second.end()) return {nullptr, {}};
  return {&it->second, at};
}

// Runs the delete callback of one attribute of `type` and removes it. The
// callback runs without the table's lock (it may call MPI_Type_* itself).
int delete_one(const char* fn, MPI_Datatype type, int keyval, void* value) {
  Keyval* kv = type_keyval(keyval);
  if (kv != nullptr && kv->type_del != nullptr)
    if (int e = kv->type_del(type, keyval, value, kv->extra_state); e != MPI_SUCCESS)
      return mpi_error(
          MPI_COMM_WORLD, fn, e,
          "the delete callback of datatype keyval " + std::to_string(keyval) + " returned " + std::to_string(e));
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    if (auto [list, at] = find(type, keyval); list != nullptr) {
      list->erase(at);
      if (list->empty()) table().erase(type);
    }
  }
  lz::rt::keyval_release(keyval);
  return MPI_SUCCESS;
}

}  // namespace

namespace lz::rt {

int type_attributes_copy(const char* fn, MPI_Datatype from, MPI_Datatype to) {
  Attributes from_attrs;
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    if (auto it = table().find(from); it != table().end()) from_attrs = it->second;
  }
  for (const auto& [keyval, value] : from_attrs) {
    Keyval* kv = type_keyval(keyval);
    if (kv == nullptr || kv->type_copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    if (int e = kv->type_copy(from, keyval, kv->extra_state, value, &out, &flag); e != MPI_SUCCESS)
      return mpi_error(
          MPI_COMM_WORLD, fn, e,
          "the copy callback of datatype keyval " + std::to_string(keyval) + " returned " + std::to_string(e));
    if (!flag) continue;
    keyval_retain(keyval);
    std::lock_guard<std::mutex> lock(table_mutex());
    table()[to].emplace_back(keyval, out);
  }
  return MPI_SUCCESS;
}

int type_attributes_delete_all(const char* fn, MPI_Datatype type) {
  for (;;) {
    std::pair<int, void*> last;
    {
      std::lock_guard<std::mutex> lock(table_mutex());
      auto it = table().find(type);
      if (it == table().end()) return MPI_SUCCESS;
      last = it->second.back();
    }
    if (int e = delete_one(fn, type, last.first, last.second)) return e;
  }
}

}  // namespace lz::rt

extern "C" {

int lz_mpi_type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int lz_mpi_type_dup_fn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int lz_mpi_type_null_delete_fn(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn, int* keyval,
                           void* extra_state) {
  static constexpr const char* kFn = "MPI_Type_create_keyval";
  LZ_MPI_ENTRY(kFn);
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "type_keyval is NULL");
  Keyval k;
  k.kind = Keyval::Kind::kType;
  k.type_copy = copy_fn;
  k.type_del = delete_fn;
  k.extra_state = extra_state;
  *keyval = lz::rt::keyval_create(k);
  return MPI_SUCCESS;
}

int MPI_Type_free_keyval(int* keyval) {
  static constexpr const char* kFn = "MPI_Type_free_keyval";
  LZ_MPI_ENTRY(kFn);
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "type_keyval is NULL");
  if (type_keyval(*keyval) == nullptr) return keyval_error(kFn, *keyval);
  lz::rt::keyval_release(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int keyval, void* attribute_val) {
  static constexpr const char* kFn = "MPI_Type_set_attr";
  LZ_MPI_ENTRY(kFn);
  if (datatype == MPI_DATATYPE_NULL) return type_error(kFn);
  if (type_keyval(keyval) == nullptr) return keyval_error(kFn, keyval);
  void* old = nullptr;
  bool had = false;
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    if (auto [list, at] = find(datatype, keyval); list != nullptr) {
      had = true;
      old = at->second;
    }
  }
  if (had)
    if (int e = delete_one(kFn, datatype, keyval, old)) return e;  // the old value's delete callback runs first
  lz::rt::keyval_retain(keyval);
  std::lock_guard<std::mutex> lock(table_mutex());
  table()[datatype].emplace_back(keyval, attribute_val);
  return MPI_SUCCESS;
}

int MPI_Type_get_attr(MPI_Datatype datatype, int keyval, void* attribute_val, int* flag) {
  static constexpr const char* kFn = "MPI_Type_get_attr";
  LZ_MPI_ENTRY(kFn);
  if (datatype == MPI_DATATYPE_NULL) return type_error(kFn);
  if (attribute_val == nullptr || flag == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (type_keyval(keyval) == nullptr) return keyval_error(kFn, keyval);
  std::lock_guard<std::mutex> lock(table_mutex());
  auto [list, at] = find(datatype, keyval);
  *flag = list != nullptr;
  if (*flag) *static_cast<void**>(attribute_val) = at->second;
  return MPI_SUCCESS;
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int keyval) {
  static constexpr const char* kFn = "MPI_Type_delete_attr";
  LZ_MPI_ENTRY(kFn);
  if (datatype == MPI_DATATYPE_NULL) return type_error(kFn);
  if (type_keyval(keyval) == nullptr) return keyval_error(kFn, keyval);
  void* value = nullptr;
  {
    std::lock_guard<std::mutex> lock(table_mutex());
    auto [list, at] = find(datatype, keyval);
    if (list == nullptr)
      return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
                       "no attribute of keyval " + std::to_string(keyval) + " on the datatype");
    value = at->second;
  }
  return delete_one(kFn, datatype, keyval, value);
}

}  // extern "C"
