/* The pause between iterations of the checkpoint/restart test programs
 * (cr_iter.c, cr_bigring.c): 20 ms, so that a job lives long enough for
 * its checkpoints to land in the middle of its communication. With
 * CR_ITER_RELEASE=FILE the pauses stop once FILE exists: cr_test.sh creates
 * it after the last event that needs the job alive, so the rest of the run,
 * and every restart from a snapshot, goes at full speed instead of waiting
 * on a timer. The arithmetic never depends on the pauses. */
#ifndef CR_PACE_H
#define CR_PACE_H
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline void cr_pace(void) {
  static int released; /* a restored process looks at the file again */
  const char* file = getenv("CR_ITER_RELEASE");
  if (!__atomic_load_n(&released, __ATOMIC_RELAXED) && file != NULL && access(file, F_OK) == 0)
    __atomic_store_n(&released, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&released, __ATOMIC_RELAXED)) return;
  const struct timespec ts = {0, 20000000};
  nanosleep(&ts, NULL);
}
#endif
