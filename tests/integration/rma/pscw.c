/* Active target with general synchronization: MPI_Win_post / MPI_Win_start /
 * MPI_Win_complete, ended by MPI_Win_wait or by MPI_Win_test in a loop until
 * its flag is set. Several rounds of three patterns: both ring neighbours
 * (each rank exposes to and accesses the same group; puts into both, gets of
 * a region their owner stored before posting), a one-way ring (post to the
 * left, start to the right) and a star (rank 0 exposed to all others, which
 * accumulate into it). Any np >= 1. */
#include <stdlib.h>

#include "rma_test.h"

#define K 8
#define ROUNDS 6

static int rank, size;

static int val(int src, int round, int i) { return src * 100000 + round * 100 + i; }

/* The group of the distinct ranks of ranks[0..n). */
static MPI_Group group_of(const int* ranks, int n) {
  MPI_Group world, g;
  int uniq[2], m = 0;
  for (int i = 0; i < n; ++i) {
    int seen = 0;
    for (int j = 0; j < m; ++j) seen |= uniq[j] == ranks[i];
    if (!seen) uniq[m++] = ranks[i];
  }
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, m, uniq, &g);
  MPI_Group_free(&world);
  return g;
}

/* Ends the exposure epoch: MPI_Win_wait, or MPI_Win_test until done. */
static void end_exposure(MPI_Win win, int use_test) {
  if (!use_test) {
    CHECK_MPI(MPI_Win_wait(win));
    return;
  }
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  /* Window (ints): [0, K) from the left, [K, 2K) from the right, [2K, 3K)
   * stable data of the owner, [3K] the star's counter. */
  const int FROM_LEFT = 0, FROM_RIGHT = K, STABLE = 2 * K, COUNTER = 3 * K;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(
      MPI_Win_allocate(rma_size((3 * K + 1) * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  w[COUNTER] = 0;
  const int nb[2] = {left, right};
  MPI_Group nbrs = group_of(nb, 2), to_left = group_of(&left, 1), to_right = group_of(&right, 1);

  for (int round = 0; round < ROUNDS; ++round) {
    const int use_test = round % 2;
    const char* end = use_test ? "MPI_Win_test" : "MPI_Win_wait";
    /* Both neighbours. */
    for (int i = 0; i < 2 * K; ++i) w[i] = -1;
    for (int i = 0; i < K; ++i) w[STABLE + i] = val(rank, round, i) + 7;
    int to_r[K], to_l[K], got_r[K], got_l[K];
    for (int i = 0; i < K; ++i) {
      to_r[i] = val(rank, round, i);
      to_l[i] = -val(rank, round, i);
      got_r[i] = got_l[i] = -2;
    }
    CHECK_MPI(MPI_Win_post(nbrs, 0, win));
    CHECK_MPI(MPI_Win_start(nbrs, 0, win));
    CHECK_MPI(MPI_Put(to_r, K, MPI_INT, right, FROM_LEFT, K, MPI_INT, win));
    CHECK_MPI(MPI_Put(to_l, K, MPI_INT, left, FROM_RIGHT, K, MPI_INT, win));
    CHECK_MPI(MPI_Get(got_r, K, MPI_INT, right, STABLE, K, MPI_INT, win));
    CHECK_MPI(MPI_Get(got_l, K, MPI_INT, left, STABLE, K, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    end_exposure(win, use_test);
    for (int i = 0; i < K; ++i) {
      CHECK(w[FROM_LEFT + i] == val(left, round, i),
            "round %d (%s): MPI_Put from rank %d, element %d: got %d, expected %d", round, end, left, i,
            w[FROM_LEFT + i], val(left, round, i));
      CHECK(w[FROM_RIGHT + i] == -val(right, round, i),
            "round %d (%s): MPI_Put from rank %d, element %d: got %d, expected %d", round, end, right, i,
            w[FROM_RIGHT + i], -val(right, round, i));
      CHECK(got_r[i] == val(right, round, i) + 7, "round %d: MPI_Get from rank %d, element %d: got %d, expected %d",
            round, right, i, got_r[i], val(right, round, i) + 7);
      CHECK(got_l[i] == val(left, round, i) + 7, "round %d: MPI_Get from rank %d, element %d: got %d, expected %d",
            round, left, i, got_l[i], val(left, round, i) + 7);
    }

    /* One way: exposed to the left neighbour, accessing the right one. */
    for (int i = 0; i < K; ++i) w[FROM_LEFT + i] = -1;
    CHECK_MPI(MPI_Win_post(to_left, 0, win));
    CHECK_MPI(MPI_Win_start(to_right, 0, win));
    for (int i = 0; i < K; ++i) to_r[i] = val(rank, round, i) + 3;
    CHECK_MPI(MPI_Put(to_r, K, MPI_INT, right, FROM_LEFT, K, MPI_INT, win));
    CHECK_MPI(MPI_Win_complete(win));
    end_exposure(win, !use_test);
    for (int i = 0; i < K; ++i)
      CHECK(w[FROM_LEFT + i] == val(left, round, i) + 3,
            "round %d (one-way ring): MPI_Put from rank %d, element %d: got %d, expected %d", round, left, i,
            w[FROM_LEFT + i], val(left, round, i) + 3);

    /* Star: the others accumulate into rank 0, which only exposes. */
    if (size > 1) {
      if (rank == 0) {
        MPI_Group world, others;
        const int zero[1] = {0};
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_excl(world, 1, zero, &others);
        CHECK_MPI(MPI_Win_post(others, 0, win));
        end_exposure(win, use_test);
        const int want = (round + 1) * (round + 2) / 2 * (size - 1) * size / 2;
        CHECK(w[COUNTER] == want, "round %d (star): MPI_Accumulate from ranks 1..%d: got %d, expected %d", round,
              size - 1, w[COUNTER], want);
        MPI_Group_free(&others);
        MPI_Group_free(&world);
      } else {
        MPI_Group root;
        const int zero = 0;
        root = group_of(&zero, 1);
        CHECK_MPI(MPI_Win_start(root, 0, win));
        int add = rank * (round + 1);
        CHECK_MPI(MPI_Accumulate(&add, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Win_complete(win));
        MPI_Group_free(&root);
      }
    }
    RMA_OK(rank, "pscw round %d (neighbours, one-way ring, star; %s)", round, end);
  }
  MPI_Group_free(&nbrs);
  MPI_Group_free(&to_left);
  MPI_Group_free(&to_right);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "pscw: %d ranks", size);
  MPI_Finalize();
  return 0;
}
