#include "lazarus/frameworks/cr_app_args.h"

#include <cstdint>
#include <string>

namespace lz::cr {
namespace {

std::string dim(const char* what, int d) { return std::string(what) + "[" + std::to_string(d) + "]"; }

}  // namespace

Status fill_decomposed(AppVariable& v, const char* name, void* addr, int ndims, const int global_shape[],
                       const int owned_start[], const int owned_shape[], const int alloc_shape[],
                       const int alloc_offset[], DecomposedError* why) {
  const std::string var = "variable '" + std::string(name != nullptr ? name : "") + "': ";
  auto refuse = [&](DecomposedError kind, const std::string& text) {
    *why = kind;
    return InvalidArgument(var + text);
  };
  if (ndims < 1 || ndims > 32) return refuse(DecomposedError::kDims, "ndims must be 1..32, not " + std::to_string(ndims));
  if (addr == nullptr || global_shape == nullptr || owned_start == nullptr || owned_shape == nullptr)
    return refuse(DecomposedError::kArg, "addr, global_shape, owned_start and owned_shape must not be NULL");
  v.name = name;
  v.addr = addr;
  int64_t count = 1;
  for (int d = 0; d < ndims; ++d) {
    const int g = global_shape[d], s = owned_start[d], o = owned_shape[d];
    const int a = alloc_shape != nullptr ? alloc_shape[d] : o;
    const int off = alloc_offset != nullptr ? alloc_offset[d] : 0;
    std::string bad;
    if (g < 1) bad = dim("global_shape", d) + " = " + std::to_string(g) + " (must be >= 1)";
    else if (o < 0 || s < 0 || s + o > g)
      bad = "the owned block " + dim("owned_start", d) + " = " + std::to_string(s) + ", " + dim("owned_shape", d) +
            " = " + std::to_string(o) + " does not fit in " + dim("global_shape", d) + " = " + std::to_string(g);
    else if (off < 0 || a < off + o)
      bad = "the owned block (" + dim("alloc_offset", d) + " = " + std::to_string(off) + ", " +
            dim("owned_shape", d) + " = " + std::to_string(o) + ") does not fit in " + dim("alloc_shape", d) +
            " = " + std::to_string(a);
    if (!bad.empty()) return refuse(DecomposedError::kArg, bad);
    v.global_shape.push_back(g);
    v.owned_start.push_back(s);
    v.owned_shape.push_back(o);
    v.alloc_shape.push_back(a);
    v.alloc_offset.push_back(off);
    count *= a;
  }
  if (count > INT32_MAX) return refuse(DecomposedError::kCount, "the allocation holds more than INT_MAX elements");
  v.count = count;
  *why = DecomposedError::kNone;
  return Status::Ok();
}

}  // namespace lz::cr
