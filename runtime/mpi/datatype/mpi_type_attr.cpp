// MPI binding: datatype attributes and their keyvals (MPI-3.1 section
// 6.7.4). The keyvals share the registry (and handle space) of the
// communicators' (mpi/keyval.h), of kind kType; the attributes of a type are
// kept here, by handle, from the first MPI_Type_set_attr to MPI_Type_free.
#include <algorithm>
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

// The attributes of each type that has any. MPI calls run one at a time
// (as the thread level promises, or through the thread gate under
// MPI_THREAD_MULTIPLE), so, like the communicators' attributes
// (mpi_attr.cpp), it needs no lock. Callbacks may call MPI_Type_* and change
// it: nothing here holds an iterator across one.
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

// Runs the delete callback of one attribute of `type` and removes it.
int delete_one(const char* fn, MPI_Datatype type, int keyval, void* value) {
  Keyval* kv = type_keyval(keyval);
  if (kv != nullptr && kv->type_del != nullptr)
    if (int e = kv->type_del(type, keyval, value, kv->extra_state); e != MPI_SUCCESS)
      return mpi_error(
          MPI_COMM_WORLD, fn, e,
          "the delete callback of datatype keyval " + std::to_string(keyval) + " returned " + std::to_string(e));
  if (auto [list, at] = find(type, keyval); list != nullptr) {
    list->erase(at);
    if (list->empty()) table().erase(type);
  }
  lz::rt::keyval_release(keyval);
  return MPI_SUCCESS;
}

}  // namespace

namespace lz::rt {

int type_attributes_copy(const char* fn, MPI_Datatype from, MPI_Datatype to) {
  auto it = table().find(from);
  if (it == table().end()) return MPI_SUCCESS;
  const Attributes from_attrs = it->second;  // a copy: the callbacks may change the table
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
    table()[to].emplace_back(keyval, out);
  }
  return MPI_SUCCESS;
}

int type_attributes_delete_all(const char* fn, MPI_Datatype type) {
  for (auto it = table().find(type); it != table().end(); it = table().find(type)) {
    const auto [keyval, value] = it->second.back();
    if (int e = delete_one(fn, type, keyval, value)) return e;
  }
  return MPI_SUCCESS;
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
  lz::rt::keyval_free_handle(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int keyval, void* attribute_val) {
  static constexpr const char* kFn = "MPI_Type_set_attr";
  LZ_MPI_ENTRY(kFn);
  if (datatype == MPI_DATATYPE_NULL) return type_error(kFn);
  if (type_keyval(keyval) == nullptr) return keyval_error(kFn, keyval);
  if (auto [list, at] = find(datatype, keyval); list != nullptr)
    if (int e = delete_one(kFn, datatype, keyval, at->second)) return e;  // the old value's delete callback runs first
  lz::rt::keyval_retain(keyval);
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
  auto [list, at] = find(datatype, keyval);
  if (list == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
                     "no attribute of keyval " + std::to_string(keyval) + " on the datatype");
  return delete_one(kFn, datatype, keyval, at->second);
}

}  // extern "C"
