/* An unmodified program (no libcr calls) for `cr_run`: a deterministic
 * checksum over `iters` iterations; half-way it prints "waiting" and waits
 * until the file given with --go exists, so a test can checkpoint it there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long iters = 1000;
  const char* go = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--go") && i + 1 < argc)
      go = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atol(argv[++i]);
  }
  enum { kWords = 1 << 14 };
  uint64_t* state = calloc(kWords, sizeof *state);
  uint64_t sum = 7;
  for (long i = 0; i < iters; ++i) {
    for (long w = 0; w < kWords; w += 5) state[w] = state[w] * 6364136223846793005ull + (uint64_t)(i + w);
    sum = (sum << 7 | sum >> 57) ^ state[(i * 31) % kWords];
    if (go && i == iters / 2) {
      printf("waiting\n");
      fflush(stdout);
      while (access(go, F_OK) != 0) usleep(10000);
    }
  }
  printf("result %016llx\n", (unsigned long long)sum);
  return 0;
}
