// cpu_relax(): a spinning thread's hint to the CPU between two looks at
// memory another process writes (x86 PAUSE, Arm YIELD; nothing elsewhere).
// Besides sharing a core's resources better, it spaces the looks out, so a
// poller pulls a line the writer is still filling into its cache less often.
#pragma once

namespace lz {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

}  // namespace lz
