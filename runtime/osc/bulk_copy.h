// Copies of many bytes into or out of another process's window memory
// within a host (the load/store path of window_direct.cpp).
//
// A put writes lines the origin will not read again: with streaming
// (non-temporal) stores they go to memory without first being read into the
// origin's cache and without evicting its working set, as the single-copy
// paths of UCX and glibc's memcpy above its non-temporal threshold do. A get
// reads lines last written by another core: software prefetch a few lines
// ahead keeps the loads streaming. Below the threshold
// (osc_bulk_copy_threshold), and off x86-64, both are std::memcpy.
#pragma once

#include <cstddef>
#include <cstring>

namespace lz::osc {

// The copies of `threshold` bytes or more (bulk_copy.cpp).
void stream_to_peer(void* dst, const void* src, size_t n);
void prefetch_from_peer(void* dst, const void* src, size_t n);

// `n` bytes from `src` (this process) to `dst` (a peer's window), not
// overlapping; streaming stores when n >= threshold (threshold 0: never).
inline void copy_to_peer(void* dst, const void* src, size_t n, size_t threshold) {
  if (threshold != 0 && n >= threshold)
    stream_to_peer(dst, src, n);
  else
    std::memcpy(dst, src, n);
}

// `n` bytes from `src` (a peer's window) to `dst` (this process), not
// overlapping; prefetching loads when n >= threshold (threshold 0: never).
inline void copy_from_peer(void* dst, const void* src, size_t n, size_t threshold) {
  if (threshold != 0 && n >= threshold)
    prefetch_from_peer(dst, src, n);
  else
    std::memcpy(dst, src, n);
}

}  // namespace lz::osc
