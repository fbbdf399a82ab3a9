#include "registration_cache.h"

#include <unistd.h>

#include <cstdlib>

namespace lz::rt {

void* RegistrationCache::allocate_area(size_t bytes, int* error) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t len = bytes == 0 ? 1 : bytes;
  void* p = nullptr;
  if (int rc = posix_memalign(&p, page, len); rc != 0) {
    *error = rc;
    return nullptr;
  }
  add_area(p, len);
  return p;
}

bool RegistrationCache::free_area(void* base) {
  if (!remove_area(base)) return false;
  std::free(base);
  return true;
}

void RegistrationCache::add_area(const void* base, size_t len) {
  std::lock_guard<std::mutex> lock(mu_);
  areas_[reinterpret_cast<uintptr_t>(base)] = Area{len, {}};
  count_.store(areas_.size(), std::memory_order_relaxed);
}

bool RegistrationCache::remove_area(const void* base) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = areas_.find(reinterpret_cast<uintptr_t>(base));
  if (it == areas_.end()) return false;
  deregister_all(it->second);
  areas_.erase(it);
  count_.store(areas_.size(), std::memory_order_relaxed);
  return true;
}

std::optional<transport::MemoryRegion> RegistrationCache::find(transport::Module* module, const void* addr,
                                                               size_t len) {
  if (areas() == 0) return std::nullopt;
  const auto a = reinterpret_cast<uintptr_t>(addr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = areas_.upper_bound(a);  // the first area after addr; the one before may hold it
  if (it == areas_.begin()) return std::nullopt;
  --it;
  Area& area = it->second;
  if (a - it->first > area.len || len > area.len - (a - it->first)) return std::nullopt;
  for (const auto& [m, region] : area.regions)
    if (m == module) {
      ++counts_.hits;
      return region;
    }
  transport::MemoryRegion region;
  if (!module->register_memory(reinterpret_cast<const void*>(it->first), area.len, &region).ok()) return std::nullopt;
  area.regions.emplace_back(module, region);
  ++counts_.registrations;
  return region;
}

void RegistrationCache::drop_registrations() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [base, area] : areas_) deregister_all(area);
}

RegistrationCache::Counts RegistrationCache::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

void RegistrationCache::deregister_all(Area& a) {
  for (auto& [module, region] : a.regions) module->deregister_memory(region);
  a.regions.clear();
}

RegistrationCache& registration_cache() {
  static RegistrationCache cache;
  return cache;
}

}  // namespace lz::rt
