#include "osc/bulk_copy.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lz::osc {
namespace {
#if defined(__x86_64__)
constexpr size_t kTurn = 128;           // bytes copied per loop turn
constexpr size_t kPrefetchAhead = 512;  // measured best of 512, 1024, 2048

// Bytes before `p`'s next 32-byte boundary (copied by memcpy first, so the
// streaming stores are aligned).
size_t head_to_align(const void* p) { return (32 - reinterpret_cast<uintptr_t>(p) % 32) % 32; }

__attribute__((target("avx2"))) void stream_avx2(char* dst, const char* src, size_t n) {
  for (; n >= kTurn; n -= kTurn, src += kTurn, dst += kTurn) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + 96), d);
  }
  _mm_sfence();  // streaming stores are weakly ordered: visible before the call returns
  std::memcpy(dst, src, n);
}

__attribute__((target("avx2"))) void prefetching_avx2(char* dst, const char* src, size_t n) {
  for (; n >= kTurn; n -= kTurn, src += kTurn, dst += kTurn) {
    // Prefetching past the end is harmless: prefetch never faults.
    _mm_prefetch(src + kPrefetchAhead, _MM_HINT_T0);
    _mm_prefetch(src + kPrefetchAhead + 64, _MM_HINT_T0);
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 96), d);
  }
  std::memcpy(dst, src, n);
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");
#endif
}  // namespace

void stream_to_peer(void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  const size_t head = head_to_align(dst);
  if (kHasAvx2 && n >= head + kTurn) {
    std::memcpy(dst, src, head);
    stream_avx2(static_cast<char*>(dst) + head, static_cast<const char*>(src) + head, n - head);
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

void prefetch_from_peer(void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  if (kHasAvx2) {
    prefetching_avx2(static_cast<char*>(dst), static_cast<const char*>(src), n);
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

}  // namespace lz::osc
