/* All-to-all stress: every rank sends a random number of messages of random
 * sizes (0 B to 256 KiB: eager and rendezvous) and random tags to every other
 * rank, with Isend; receivers use MPI_ANY_SOURCE / MPI_ANY_TAG and check each
 * message's contents from its header and the non-overtaking order per
 * (source, tag). */
#include <string.h>
#include "lz_test.h"

#define MAXMSG (256 * 1024 + 16)
#define NTAGS 4

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  MPI_Comm bar;
  MPI_Comm_dup(MPI_COMM_WORLD, &bar);
  for (int round = 0; round < rounds; ++round) {
    /* Every rank derives every rank's plan from the same seeds. */
    int *count = calloc((size_t)size * size, sizeof(int));
    for (int s = 0; s < size; ++s) {
      unsigned seed = 12345u + 977u * (unsigned)s + 31u * (unsigned)round;
      for (int d = 0; d < size; ++d) count[s * size + d] = (int)(lz_rand(&seed) % 6);
    }
    int nsend = 0, nrecv = 0;
    for (int d = 0; d < size; ++d) nsend += count[rank * size + d];
    for (int s = 0; s < size; ++s) nrecv += count[s * size + rank];
    char **sbufs = calloc((size_t)nsend + 1, sizeof(char *));
    MPI_Request *reqs = calloc((size_t)nsend + 1, sizeof(MPI_Request));
    unsigned seed = 999u + (unsigned)rank * 7919u + (unsigned)round;
    int k = 0;
    /* per (dest, tag) sequence numbers */
    int *seq = calloc((size_t)size * NTAGS, sizeof(int));
    for (int d = 0; d < size; ++d) {
      for (int m = 0; m < count[rank * size + d]; ++m) {
        unsigned r = lz_rand(&seed);
        int len = (r & 3) == 0 ? (int)(lz_rand(&seed) % MAXMSG) : (int)(lz_rand(&seed) % 2048);
        if (len < 16) len = 16;
        int tag = (int)(lz_rand(&seed) % NTAGS);
        char *b = malloc((size_t)len);
        int hdr[4] = {rank, tag, seq[d * NTAGS + tag]++, len};
        memcpy(b, hdr, sizeof hdr);
        for (int i = 16; i < len; ++i) b[i] = (char)lz_pattern(rank, hdr[2] + 100 * tag, i);
        sbufs[k] = b;
        MPI_Isend(b, len, MPI_BYTE, d, tag, MPI_COMM_WORLD, &reqs[k]);
        ++k;
      }
    }
    int *expect = calloc((size_t)size * NTAGS, sizeof(int));
    char *rb = malloc(MAXMSG);
    for (int i = 0; i < nrecv; ++i) {
      MPI_Status st;
      MPI_Recv(rb, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      int hdr[4];
      memcpy(hdr, rb, sizeof hdr);
      int n;
      MPI_Get_count(&st, MPI_BYTE, &n);
      CHECK(hdr[0] == st.MPI_SOURCE && hdr[1] == st.MPI_TAG && hdr[3] == n, "header %d/%d/%d vs status %d/%d/%d",
            hdr[0], hdr[1], hdr[3], st.MPI_SOURCE, st.MPI_TAG, n);
      CHECK(hdr[2] == expect[st.MPI_SOURCE * NTAGS + st.MPI_TAG], "order: got seq %d from %d tag %d, expected %d",
            hdr[2], st.MPI_SOURCE, st.MPI_TAG, expect[st.MPI_SOURCE * NTAGS + st.MPI_TAG]);
      expect[st.MPI_SOURCE * NTAGS + st.MPI_TAG]++;
      for (int j = 16; j < n; ++j)
        CHECK(rb[j] == (char)lz_pattern(hdr[0], hdr[2] + 100 * hdr[1], j), "payload byte %d from %d", j, hdr[0]);
    }
    MPI_Waitall(nsend, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nsend; ++i) free(sbufs[i]);
    free(sbufs);
    free(reqs);
    free(seq);
    free(expect);
    free(rb);
    free(count);
    lz_barrier(bar); /* the next round's wildcard receives must not see this round's messages */
  }
  MPI_Comm_free(&bar);
  if (rank == 0) printf("stress: %d ranks, %d rounds ok\n", size, rounds);
  MPI_Finalize();
  return 0;
}
