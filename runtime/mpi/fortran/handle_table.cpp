// HandleTable and the per-kind tables behind MPI_Xxx_f2c/c2f and the Fortran
// binding (handle_table.h).
#include "mpi/fortran/handle_table.h"

#include <array>

namespace lz::fortran {

HandleTable::HandleTable(const std::vector<void*>& predefined) {
  objects_.reserve(predefined.size() + 64);
  objects_.push_back(nullptr);  // index 0: the null handle
  for (void* p : predefined) {
    index_of_.emplace(p, static_cast<int>(objects_.size()));
    objects_.push_back(p);
  }
  first_user_ = static_cast<int>(objects_.size());
}

int HandleTable::c2f(void* object) {
  if (object == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_of_.find(object); it != index_of_.end()) return it->second;
  int index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
    objects_[static_cast<size_t>(index)] = object;
  } else {
    index = static_cast<int>(objects_.size());
    objects_.push_back(object);
  }
  index_of_.emplace(object, index);
  return index;
}

void* HandleTable::f2c(int index) const {
  if (index <= 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (static_cast<size_t>(index) >= objects_.size()) return nullptr;
  return objects_[static_cast<size_t>(index)];
}

void HandleTable::release(int index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index < first_user_ || static_cast<size_t>(index) >= objects_.size()) return;
  void*& slot = objects_[static_cast<size_t>(index)];
  if (slot == nullptr) return;
  // The C object may already be gone and its address reused by an object
  // with an index of its own: erase the mapping only if it is still ours.
  if (auto it = index_of_.find(slot); it != index_of_.end() && it->second == index) index_of_.erase(it);
  slot = nullptr;
  free_.push_back(index);
}

HandleTable& table(Kind kind) {
  // Built once, on first use (after libmpi's predefined objects exist: they
  // are constant-initialised or initialised before any MPI call).
  static std::array<HandleTable*, static_cast<size_t>(Kind::kNumKinds)> tables = [] {
    std::array<HandleTable*, static_cast<size_t>(Kind::kNumKinds)> t{};
    for (size_t k = 0; k < t.size(); ++k) t[k] = new HandleTable(predefined_objects(static_cast<Kind>(k)));
    return t;
  }();
  return *tables[static_cast<size_t>(kind)];
}

}  // namespace lz::fortran
