#include "mpi/fortran/f08_sections.h"

#ifdef LZ_F08_SECTIONS

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "mpi/errors.h"

namespace lz::fortran {

bool section_contiguous(const CFI_cdesc_t* d) {
  if (d->rank == 0) return true;
  CFI_index_t expect = static_cast<CFI_index_t>(d->elem_len);
  for (int i = 0; i < d->rank; ++i) {
    const CFI_dim_t& dim = d->dim[i];
    if (dim.extent == 0) return true;   // nothing to copy
    if (dim.extent == -1) return true;  // assumed size: the last dimension, after contiguous ones
    if (dim.extent > 1 && dim.sm != expect) return false;
    expect *= dim.extent;
  }
  return true;
}

// A non-contiguous section and the contiguous copy the call uses.
struct Sections::Copy {
  char* base = nullptr;  // the section's first element
  size_t elem_len = 0;
  std::vector<CFI_index_t> extent, sm;
  bool out = false;
  char* data = nullptr;  // the copy, elements in array element order
  size_t count = 0;

  ~Copy() { std::free(data); }
  // Calls f(element address, its place in the copy) for every element, the
  // first dimension fastest.
  template <typename F>
  void each(F f) const {
    std::vector<CFI_index_t> at(extent.size(), 0);
    for (size_t n = 0; n < count; ++n) {
      char* p = base;
      for (size_t i = 0; i < extent.size(); ++i) p += at[i] * sm[i];
      f(p, data + n * elem_len);
      for (size_t i = 0; i < extent.size() && ++at[i] == extent[i]; ++i) at[i] = 0;
    }
  }
  void copy_in() {
    each([this](char* e, char* c) { std::memcpy(c, e, elem_len); });
  }
  void copy_back() {
    if (out) each([this](char* e, char* c) { std::memcpy(e, c, elem_len); });
  }
};

namespace {

struct Kept {
  std::mutex mu;
  std::unordered_map<MPI_Fint, std::vector<std::unique_ptr<Sections::Copy>>> by_request;
  // by_request's size, read without the lock: every completed request of the
  // Fortran bindings asks (request_done), and almost none has a copy.
  std::atomic<size_t> requests{0};
};

Kept& kept() {
  static auto* k = new Kept();
  return *k;
}

}  // namespace

Sections::Sections(const char* function, Call call) : function_(function), call_(call) {}
Sections::~Sections() = default;

void* Sections::add(CFI_cdesc_t* d, bool out) {
  if (d == nullptr) return nullptr;
  if (d->base_addr == nullptr || section_contiguous(d)) return d->base_addr;
  if (call_ == kPersistent) {
    refused_ = true;
    return d->base_addr;
  }
  auto c = std::make_unique<Copy>();
  c->base = static_cast<char*>(d->base_addr);
  c->elem_len = d->elem_len;
  c->out = out;
  c->count = 1;
  for (int i = 0; i < d->rank; ++i) {
    c->extent.push_back(d->dim[i].extent);
    c->sm.push_back(d->dim[i].sm);
    c->count *= static_cast<size_t>(d->dim[i].extent);
  }
  c->data = static_cast<char*>(std::malloc(c->count * c->elem_len));
  if (c->data == nullptr) {
    no_memory_ = true;
    return d->base_addr;
  }
  c->copy_in();
  void* addr = c->data;
  copies_.push_back(std::move(c));
  return addr;
}

int Sections::refusal(MPI_Comm comm) const {
  if (refused_)
    return rt::mpi_error(comm, function_, MPI_ERR_BUFFER,
                         "a non-contiguous array section is not a buffer of a persistent request (each start "
                         "would need a copy of it); pass a contiguous array");
  if (no_memory_)
    return rt::mpi_error(comm, function_, MPI_ERR_NO_MEM, "no memory for the copy of a non-contiguous array section");
  return MPI_SUCCESS;
}

void Sections::finish(int rc, const MPI_Fint* request) {
  if (copies_.empty()) return;
  if (call_ == kNonblocking && rc == MPI_SUCCESS && request != nullptr && *request != 0) {
    Kept& k = kept();
    std::lock_guard<std::mutex> lock(k.mu);
    auto& v = k.by_request[*request];
    for (auto& c : copies_) v.push_back(std::move(c));
    k.requests.store(k.by_request.size(), std::memory_order_release);
    copies_.clear();
    return;
  }
  if (rc == MPI_SUCCESS)
    for (auto& c : copies_) c->copy_back();
  copies_.clear();
}

void sections_done(MPI_Fint request) {
  Kept& k = kept();
  if (k.requests.load(std::memory_order_acquire) == 0) return;
  std::vector<std::unique_ptr<Sections::Copy>> done;
  {
    std::lock_guard<std::mutex> lock(k.mu);
    auto it = k.by_request.find(request);
    if (it == k.by_request.end()) return;
    done = std::move(it->second);
    k.by_request.erase(it);
    k.requests.store(k.by_request.size(), std::memory_order_release);
  }
  for (auto& c : done) c->copy_back();
}

void sections_forget(MPI_Fint request) {
  Kept& k = kept();
  if (k.requests.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(k.mu);
  auto it = k.by_request.find(request);
  if (it == k.by_request.end()) return;
  for (auto& c : it->second) (void)c.release();  // may still be read or written
  k.by_request.erase(it);
  k.requests.store(k.by_request.size(), std::memory_order_release);
}

}  // namespace lz::fortran

#endif  // LZ_F08_SECTIONS
