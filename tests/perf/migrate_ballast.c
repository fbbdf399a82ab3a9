/* migrate_times' single-process baseline: holds MIB MiB of pseudo-random
 * data (the same generator as cr_iter's ballast, so the pages are not zero
 * and not alike) and idles until the file STOP exists, then exits 0.
 * Usage: migrate_ballast MIB STOP
 * Run under cr_run, checkpointed with cr_checkpoint --term and brought back
 * with cr_restart: the time to dump and restore one such process alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: migrate_ballast MIB STOP\n");
    return 2;
  }
  size_t words = ((size_t)atol(argv[1]) << 20) / 8;
  uint64_t* b = malloc(words * 8 + 8);
  if (!b) return 3;
  for (size_t i = 0, x = 88172645463325252ull; i < words; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    b[i] = x;
  }
  printf("ready\n");
  fflush(stdout);
  while (access(argv[2], F_OK) != 0) usleep(20000);
  return (int)(b[words / 2] & 0) ;
}
