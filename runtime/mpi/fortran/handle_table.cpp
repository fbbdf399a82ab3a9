// HandleTable and the per-kind tables behind MPI_Xxx_f2c/c2f and the Fortran
// binding (handle_table.h).
#include "mpi/fortran/handle_table.h"

#include <array>

#include "lazarus/datatype/datatype.h"

namespace lz::fortran {

HandleTable::HandleTable(const std::vector<void*>& predefined) {
  std::lock_guard<std::mutex> lock(mu_);
  for (void* p : predefined) {
    const int index = next_++;
    slot(index)->store(p, std::memory_order_release);
    index_of_.emplace(p, index);
  }
  first_user_ = next_;
}

HandleTable::~HandleTable() {
  for (auto& c : chunks_) delete[] c.load();
}

std::atomic<void*>* HandleTable::slot(int index) {
  if (index <= 0 || index >= kCapacity) return nullptr;
  auto& chunk = chunks_[static_cast<size_t>(index >> kChunkBits)];
  std::atomic<void*>* c = chunk.load(std::memory_order_acquire);
  if (c == nullptr) {
    c = new std::atomic<void*>[1 << kChunkBits]();
    chunk.store(c, std::memory_order_release);
  }
  return &c[index & ((1 << kChunkBits) - 1)];
}

int HandleTable::c2f(void* object) {
  if (object == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_of_.find(object); it != index_of_.end()) return it->second;
  int index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else if (next_ < kCapacity) {
    index = next_++;
  } else {
    return 0;
  }
  slot(index)->store(object, std::memory_order_release);
  index_of_.emplace(object, index);
  return index;
}

void* HandleTable::f2c(int index) const {
  if (index <= 0 || index >= kCapacity) return nullptr;
  const std::atomic<void*>* c = chunks_[static_cast<size_t>(index >> kChunkBits)].load(std::memory_order_acquire);
  if (c == nullptr) return nullptr;
  return c[index & ((1 << kChunkBits) - 1)].load(std::memory_order_acquire);
}

void HandleTable::release(int index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index < first_user_ || index >= next_) return;
  std::atomic<void*>* s = slot(index);
  void* object = s->load(std::memory_order_relaxed);
  if (object == nullptr) return;
  // The C object may already be gone and its address reused by an object
  // with an index of its own: erase the mapping only if it is still ours.
  if (auto it = index_of_.find(object); it != index_of_.end() && it->second == index) index_of_.erase(it);
  s->store(nullptr, std::memory_order_release);
  free_.push_back(index);
}

void HandleTable::forget(const void* object) {
  int index = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_of_.find(const_cast<void*>(object));
    if (it == index_of_.end()) return;
    index = it->second;
  }
  release(index);
}

HandleTable& table(Kind kind) {
  // Built once, on first use (after libmpi's predefined objects exist: they
  // are constant-initialised or initialised before any MPI call).
  static std::array<HandleTable*, static_cast<size_t>(Kind::kNumKinds)> tables = [] {
    std::array<HandleTable*, static_cast<size_t>(Kind::kNumKinds)> t{};
    for (size_t k = 0; k < t.size(); ++k) t[k] = new HandleTable(predefined_objects(static_cast<Kind>(k)));
    // A datatype's index goes with the type itself (lz_f_update keeps it
    // on MPI_TYPE_FREE: other references may live on).
    lz_datatype_s::set_destroy_hook(
        [](const lz_datatype_s* dt) { table(Kind::kDatatype).forget(static_cast<const void*>(dt)); });
    return t;
  }();
  return *tables[static_cast<size_t>(kind)];
}

}  // namespace lz::fortran
