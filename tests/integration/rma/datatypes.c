/* Derived datatypes on the origin and the target side of MPI_Put, MPI_Get,
 * MPI_Accumulate (MPI_SUM) and MPI_Get_accumulate (MPI_SUM, the result in
 * the origin's type): every pair of contiguous, vector, indexed, struct (of
 * MPI_INT only, with a nonzero lower bound), subarray and resized layouts of
 * 8 ints, each pair into a region of its own of the right neighbour's window,
 * in fence epochs. The elements the target type names get the data in order;
 * every other int of the region, and of the origin buffer, keeps its value.
 * Then a contiguous origin into a strided target and back under a lock, and
 * the same with a larger vector. Any np >= 1. */
#include <stdlib.h>
#include <string.h>

#include "rma_test.h"

#define NE 8      /* ints in every layout */
#define REGION 64 /* ints per (origin type, target type) pair */
#define NT 6

typedef struct {
  const char* name;
  MPI_Datatype type;
  int count;
  int off[NE]; /* the elements' offsets, in ints, in typemap order */
} layout;

static layout L[NT] = {
    {"contiguous", MPI_DATATYPE_NULL, NE, {0, 1, 2, 3, 4, 5, 6, 7}},
    {"vector(4,2,5)", MPI_DATATYPE_NULL, 1, {0, 1, 5, 6, 10, 11, 15, 16}},
    {"indexed({1,3,4},{0,4,10})", MPI_DATATYPE_NULL, 1, {0, 4, 5, 6, 10, 11, 12, 13}},
    {"struct(3 ints at 4 bytes, 5 at 48)", MPI_DATATYPE_NULL, 1, {1, 2, 3, 12, 13, 14, 15, 16}},
    {"subarray(6x7, 2x4 at (1,2))", MPI_DATATYPE_NULL, 1, {9, 10, 11, 12, 16, 17, 18, 19}},
    {"resized(contiguous(2), extent 3 ints) x4", MPI_DATATYPE_NULL, 4, {0, 1, 3, 4, 6, 7, 9, 10}},
};

static int rank, size;

static void make_types(void) {
  L[0].type = MPI_INT;
  MPI_Type_vector(4, 2, 5, MPI_INT, &L[1].type);
  const int bl[3] = {1, 3, 4}, dp[3] = {0, 4, 10};
  MPI_Type_indexed(3, bl, dp, MPI_INT, &L[2].type);
  const int sbl[2] = {3, 5};
  const MPI_Aint sdp[2] = {4, 12 * sizeof(int)};
  const MPI_Datatype st[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, sbl, sdp, st, &L[3].type);
  const int sizes[2] = {6, 7}, sub[2] = {2, 4}, starts[2] = {1, 2};
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &L[4].type);
  MPI_Datatype two;
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_create_resized(two, 0, 3 * sizeof(int), &L[5].type);
  MPI_Type_free(&two);
  for (int t = 1; t < NT; ++t) MPI_Type_commit(&L[t].type);
  /* The offsets above, as MPI_Pack sees them. */
  int idx[REGION], packed[NE];
  for (int i = 0; i < REGION; ++i) idx[i] = i;
  for (int t = 0; t < NT; ++t) {
    int pos = 0, tsize = 0;
    MPI_Type_size(L[t].type, &tsize);
    CHECK(tsize * L[t].count == NE * (int)sizeof(int), "%s: %d bytes, expected %d", L[t].name, tsize * L[t].count,
          NE * (int)sizeof(int));
    CHECK_MPI(MPI_Pack(idx, L[t].count, L[t].type, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    for (int j = 0; j < NE; ++j)
      CHECK(packed[j] == L[t].off[j], "%s: MPI_Pack gives element %d at int %d, the test expects %d", L[t].name, j,
            packed[j], L[t].off[j]);
  }
}

/* Is k one of the layout's offsets? Its index, or -1. */
static int elem(const layout* l, int k) {
  for (int j = 0; j < NE; ++j)
    if (l->off[j] == k) return j;
  return -1;
}

static int V(int src, int p, int j) { return src * 100000 + p * 100 + j; }

enum { PUT, GET, ACC, GET_ACC };
static const char* op_name[4] = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate"};

/* Target's initial value of int k of its window, per operation. */
static int init_of(int op, int owner, int k) {
  switch (op) {
    case PUT:
      return -1 - k;
    case GET:
      return owner * 100000 + k;
    case ACC:
      return 3 * k;
    default:
      return 5 * k;
  }
}

static void run(int op, MPI_Win win, int* w, int* src, int* res) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int k = 0; k < NT * NT * REGION; ++k) {
    w[k] = init_of(op, rank, k);
    src[k] = 7777;
    res[k] = -5;
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int a = 0; a < NT; ++a)
    for (int b = 0; b < NT; ++b) {
      const int p = a * NT + b;
      int *s = src + p * REGION, *d = res + p * REGION;
      for (int j = 0; j < NE; ++j) s[L[a].off[j]] = V(rank, p, j);
      const MPI_Aint disp = p * REGION;
      switch (op) {
        case PUT:
          CHECK_MPI(MPI_Put(s, L[a].count, L[a].type, right, disp, L[b].count, L[b].type, win));
          break;
        case GET:
          CHECK_MPI(MPI_Get(d, L[a].count, L[a].type, right, disp, L[b].count, L[b].type, win));
          break;
        case ACC:
          CHECK_MPI(MPI_Accumulate(s, L[a].count, L[a].type, right, disp, L[b].count, L[b].type, MPI_SUM, win));
          break;
        default:
          CHECK_MPI(MPI_Get_accumulate(s, L[a].count, L[a].type, d, L[a].count, L[a].type, right, disp, L[b].count,
                                       L[b].type, MPI_SUM, win));
      }
    }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
  for (int a = 0; a < NT; ++a)
    for (int b = 0; b < NT; ++b) {
      const int p = a * NT + b;
      /* My window, written by the left neighbour through layout b. */
      for (int k = 0; k < REGION; ++k) {
        const int g = p * REGION + k, j = elem(&L[b], k);
        int want = init_of(op, rank, g);
        if (j >= 0 && op == PUT) want = V(left, p, j);
        if (j >= 0 && (op == ACC || op == GET_ACC)) want += V(left, p, j);
        CHECK(w[g] == want, "%s from rank %d, origin %s, target %s: target int %d: got %d, expected %d%s", op_name[op],
              left, L[a].name, L[b].name, k, w[g], want, j >= 0 ? "" : " (not in the target type: untouched)");
      }
      /* My result buffer, read from the right neighbour through layout b. */
      if (op == GET || op == GET_ACC)
        for (int k = 0; k < REGION; ++k) {
          const int j = elem(&L[a], k);
          const int want = j >= 0 ? init_of(op, right, p * REGION + L[b].off[j]) : -5;
          CHECK(res[p * REGION + k] == want,
                "%s from rank %d, origin %s, target %s: result int %d: got %d, expected %d%s", op_name[op], right,
                L[a].name, L[b].name, k, res[p * REGION + k], want,
                j >= 0 ? "" : " (not in the origin type: untouched)");
        }
    }
  RMA_OK(rank, "%s, %d x %d origin and target layouts", op_name[op], NT, NT);
}

/* Contiguous into a strided target and back, under a lock. */
static void round_trip(MPI_Win win, int* w, int nblocks, int bl, int stride) {
  const int right = (rank + 1) % size, n = nblocks * bl;
  MPI_Datatype vec;
  MPI_Type_vector(nblocks, bl, stride, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *out = malloc(n * sizeof(int)), *back = malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) out[i] = rank * 1000000 + i, back[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  for (int k = 0; k < nblocks * stride; ++k) w[k] = -3;
  CHECK_MPI(MPI_Win_unlock(rank, win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Put(out, n, MPI_INT, right, 0, 1, vec, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK_MPI(MPI_Get(back, n, MPI_INT, right, 0, 1, vec, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  for (int i = 0; i < n; ++i)
    CHECK(back[i] == out[i], "contiguous -> vector(%d,%d,%d) at rank %d and back: element %d: got %d, expected %d",
          nblocks, bl, stride, right, i, back[i], out[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  const int left = (rank - 1 + size) % size;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  for (int k = 0; k < nblocks * stride; ++k) {
    const int b = k / stride, i = k % stride;
    const int want = i < bl ? left * 1000000 + b * bl + i : -3;
    CHECK(w[k] == want, "contiguous from rank %d -> vector(%d,%d,%d): int %d: got %d, expected %d", left, nblocks, bl,
          stride, k, w[k], want);
  }
  CHECK_MPI(MPI_Win_unlock(rank, win));
  MPI_Type_free(&vec);
  free(out);
  free(back);
  RMA_OK(rank, "contiguous -> vector(%d,%d,%d) -> contiguous", nblocks, bl, stride);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_types();
  const int total = NT * NT * REGION;
  int *w = NULL, *src = malloc(total * sizeof(int)), *res = malloc(total * sizeof(int));
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(total * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  for (int op = PUT; op <= GET_ACC; ++op) run(op, win, w, src, res);
  round_trip(win, w, 4, 2, 5);
  round_trip(win, w, 300, 3, 7);
  CHECK_MPI(MPI_Win_free(&win));
  for (int t = 1; t < NT; ++t) MPI_Type_free(&L[t].type);
  free(src);
  free(res);
  RMA_OK(rank, "datatypes: %d ranks", size);
  MPI_Finalize();
  return 0;
}
