#include "mpi/keyval.h"

#include <memory>
#include <vector>

namespace lz::rt {
namespace {

// Slot k - kFirstUserKeyval; ended keyvals leave a null slot (handles are
// never reused: a stale handle stays invalid).
std::vector<std::unique_ptr<Keyval>>& table() {
  static std::vector<std::unique_ptr<Keyval>> t;
  return t;
}

Keyval* any_kind(int k) {
  const long i = static_cast<long>(k) - kFirstUserKeyval;
  if (i < 0 || i >= static_cast<long>(table().size())) return nullptr;
  return table()[static_cast<size_t>(i)].get();
}

}  // namespace

int keyval_create(const Keyval& k) {
  table().push_back(std::make_unique<Keyval>(k));
  return kFirstUserKeyval + static_cast<int>(table().size()) - 1;
}

Keyval* keyval_find(int k, Keyval::Kind kind) {
  Keyval* kv = any_kind(k);
  return kv != nullptr && kv->kind == kind ? kv : nullptr;
}

void keyval_retain(int k) {
  if (Keyval* kv = any_kind(k)) ++kv->refs;
}

void keyval_release(int k) {
  Keyval* kv = any_kind(k);
  if (kv != nullptr && --kv->refs == 0) table()[static_cast<size_t>(k - kFirstUserKeyval)].reset();
}

void keyval_free_handle(int k) {
  Keyval* kv = any_kind(k);
  if (kv == nullptr || kv->handle_freed) return;
  kv->handle_freed = true;
  keyval_release(k);
}

}  // namespace lz::rt
