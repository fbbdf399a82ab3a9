/* Which libraries a rank has mapped: `maps absent NAME...` fails if any
 * mapping of /proc/self/maps names a file containing one of NAME (a shm or
 * tcp job must not carry libfabric or UCX: they grow every core image);
 * `maps present NAME...` fails unless each is mapped (an ofi or ucx job
 * does load them, which shows the check can see them). Checked after
 * MPI_Init and again after traffic; every rank checks, rank 0 reports. */
#include <string.h>

#include "lz_test.h"

/* The first mapping whose path contains `name`, copied into line; 0 if none. */
static int mapped(const char* name, char* line, size_t cap) {
  FILE* f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL, "cannot open /proc/self/maps");
  int found = 0;
  while (!found && fgets(line, (int)cap, f) != NULL) {
    const char* path = strchr(line, '/');
    found = path != NULL && strstr(path, name) != NULL;
  }
  fclose(f);
  return found;
}

static void check(int want_present, int argc, char** argv, const char* when) {
  char line[4096];
  for (int i = 2; i < argc; ++i) {
    const int is = mapped(argv[i], line, sizeof line);
    if (want_present)
      CHECK(is, "%s: %s is not mapped", when, argv[i]);
    else
      CHECK(!is, "%s: %s is mapped: %s", when, argv[i], line);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc >= 3 && (strcmp(argv[1], "absent") == 0 || strcmp(argv[1], "present") == 0),
        "usage: maps absent|present NAME...");
  const int want_present = strcmp(argv[1], "present") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check(want_present, argc, argv, "after MPI_Init");
  /* Eager and rendezvous traffic around the ring, then check again. */
  enum { kLen = 1 << 20 };
  static char out[kLen], in[kLen];
  for (long i = 0; i < kLen; ++i) out[i] = (char)lz_pattern(rank, 0, i);
  for (int len = 8; len <= kLen; len *= 32) {
    const int left = (rank - 1 + size) % size;
    MPI_Sendrecv(out, len, MPI_CHAR, (rank + 1) % size, 1, in, len, MPI_CHAR, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (long i = 0; i < len; ++i) CHECK(in[i] == (char)lz_pattern(left, 0, i), "byte %ld of %d from %d", i, len, left);
  }
  check(want_present, argc, argv, "after traffic");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("maps: %d ranks: %s %s\n", size, argv[1], argv[2]);
  MPI_Finalize();
  return 0;
}
