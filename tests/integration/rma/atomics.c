/* Atomic RMA: MPI_Fetch_and_op (MPI_SUM by every rank at once on one counter:
 * every fetched value distinct, the final value their number; MPI_NO_OP reads
 * that never go backwards; MPI_REPLACE swaps whose results and the final
 * value are the initial value and each rank's exactly once),
 * MPI_Compare_and_swap (match and mismatch; a spin lock protecting a
 * non-atomic get-add-put counter), MPI_Accumulate with every predefined
 * operation on MPI_INT, MPI_DOUBLE, MPI_LONG_LONG and MPI_UNSIGNED_CHAR where
 * the standard defines it, MAXLOC and MINLOC on MPI_2INT and MPI_DOUBLE_INT
 * (every rank into every rank, checked against the same operations folded in
 * C), and MPI_Get_accumulate with MPI_SUM, MPI_NO_OP (an atomic read) and
 * MPI_REPLACE (an atomic swap) on vectors. Any np >= 1. */
#include <stdlib.h>
#include <string.h>

#include "rma_test.h"

#define ITER 50
#define COUNT 6 /* elements per accumulate */

static int rank, size;

static int cmp_ll(const void* a, const void* b) {
  long long x = *(const long long*)a, y = *(const long long*)b;
  return x < y ? -1 : x > y;
}

/* ---- MPI_Fetch_and_op ---------------------------------------------------- */
static void test_fetch_and_op(void) {
  /* [0] the counter, [1] the swap target: on rank 0. */
  long long* w = NULL;
  MPI_Win win;
  CHECK_MPI(
      MPI_Win_allocate(rma_size(2 * sizeof(long long)), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  w[0] = 0;
  w[1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  long long fetched[ITER], one = 1, last_read = 0;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int it = 0; it < ITER; ++it) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[it], MPI_LONG_LONG, 0, 0, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(it == 0 || fetched[it] > fetched[it - 1], "MPI_Fetch_and_op(MPI_SUM) %d: fetched %lld after %lld", it,
          fetched[it], fetched[it - 1]);
    long long r = -1;
    CHECK_MPI(MPI_Fetch_and_op(NULL, &r, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(r > fetched[it] && r <= size * ITER && r >= last_read,
          "MPI_Fetch_and_op(MPI_NO_OP) after my increment %d: read %lld, expected in (%lld, %d] and >= %lld", it, r,
          fetched[it], size * ITER, last_read);
    last_read = r;
  }
  long long old = -99, mine = rank;
  CHECK_MPI(MPI_Fetch_and_op(&mine, &old, MPI_LONG_LONG, 0, 1, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock_all(win));

  /* All the fetched values, and the swapped-out ones, on rank 0. */
  long long* all = rank == 0 ? malloc((size_t)size * ITER * sizeof(long long)) : NULL;
  long long* olds = rank == 0 ? malloc((size_t)(size + 1) * sizeof(long long)) : NULL;
  MPI_Gather(fetched, ITER, MPI_LONG_LONG, all, ITER, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(&old, 1, MPI_LONG_LONG, olds, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    const long long final = w[0], last = w[1];
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK(final == (long long)size * ITER,
          "counter after %d MPI_Fetch_and_op(MPI_SUM) by each of %d ranks: %lld, expected %d", ITER, size, final,
          size * ITER);
    qsort(all, (size_t)size * ITER, sizeof(long long), cmp_ll);
    for (long i = 0; i < (long)size * ITER; ++i)
      CHECK(all[i] == i,
            "MPI_Fetch_and_op(MPI_SUM) fetched values, sorted, position %ld: %lld, expected %ld (a value "
            "fetched twice or missing)",
            i, all[i], i);
    olds[size] = last;
    qsort(olds, (size_t)size + 1, sizeof(long long), cmp_ll);
    for (int i = 0; i <= size; ++i)
      CHECK(olds[i] == i - 1,
            "MPI_Fetch_and_op(MPI_REPLACE): results and final value, sorted, position %d: %lld, "
            "expected %d (each rank's value and the initial -1 exactly once)",
            i, olds[i], i - 1);
    free(all);
    free(olds);
  }
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Fetch_and_op MPI_SUM, MPI_NO_OP, MPI_REPLACE");
}

/* ---- MPI_Compare_and_swap ------------------------------------------------ */
static void test_compare_and_swap(void) {
  /* [0] the lock word (0 free, else holder + 1), [1] the counter, both on
   * rank 0; [2] a word of my own for the single cases. */
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(3 * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  w[0] = w[1] = 0;
  w[2] = 5;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));

  /* Mismatch, then match, on the right neighbour's own word. */
  const int right = (rank + 1) % size;
  int cmp = 3, swap = 9, res = -1;
  CHECK_MPI(MPI_Compare_and_swap(&swap, &cmp, &res, MPI_INT, right, 2, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK(res == 5, "MPI_Compare_and_swap(compare 3, swap 9) at rank %d holding 5: result %d, expected 5", right, res);
  cmp = 5;
  CHECK_MPI(MPI_Compare_and_swap(&swap, &cmp, &res, MPI_INT, right, 2, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK(res == 5, "MPI_Compare_and_swap(compare 5, swap 9) at rank %d holding 5: result %d, expected 5", right, res);
  CHECK_MPI(MPI_Fetch_and_op(NULL, &res, MPI_INT, right, 2, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_flush(right, win));
  CHECK(res == 9, "value at rank %d after a matching MPI_Compare_and_swap: %d, expected 9", right, res);

  /* A spin lock: acquire by CAS 0 -> me + 1, a non-atomic increment inside,
   * release by CAS me + 1 -> 0. */
  const int me = rank + 1, zero = 0;
  for (int it = 0; it < ITER; ++it) {
    int prev = -1;
    do {
      CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &prev, MPI_INT, 0, 0, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK(prev >= 0 && prev <= size && prev != me, "spin lock: CAS on the lock word read %d (I am %d)", prev, me);
    } while (prev != 0);
    int v = -1;
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    ++v;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &prev, MPI_INT, 0, 0, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(prev == me, "spin lock release: the lock word was %d, expected %d (mine)", prev, me);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(w[0] == 0 && w[1] == size * ITER,
          "spin lock by MPI_Compare_and_swap: lock word %d, counter %d, expected 0 and %d", w[0], w[1], size * ITER);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Compare_and_swap, spin lock");
}

/* ---- MPI_Accumulate with every predefined operation ---------------------- */
enum { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, REPLACE, NOPS };
static const char* op_name[NOPS] = {"MPI_SUM",  "MPI_PROD", "MPI_MAX", "MPI_MIN",  "MPI_LAND",   "MPI_LOR",
                                    "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_REPLACE"};
static MPI_Op op_of(int op) {
  const MPI_Op ops[NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_LAND,   MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE};
  return ops[op];
}

/* The initial value and rank r's operand of element i, as small integers
 * (exact in every type; PROD's operands are 1 or 2). */
static long long init_of(int op, int i) {
  switch (op) {
    case PROD:
      return 1 + i % 2;
    case LAND:
      return i % 3 ? 3 : 0;
    case BAND:
      return 0x7f - i;
    case MAX:
    case MIN:
      return i % 4 + 1;
    default:
      return i;
  }
}
static long long operand_of(int op, int r, int i) {
  switch (op) {
    case PROD:
      return (r + i) % 3 == 0 ? 2 : 1;
    case LAND:
    case LOR:
    case LXOR:
      return (r * 3 + i) % 4 == 0 ? 0 : 1 + (r + i) % 5;
    case BAND:
      return 0x7f & ~(1 << ((r + i) % 7));
    case BOR:
    case BXOR:
      return (1 << ((r * 2 + i) % 7)) | (r & 3);
    case MAX:
    case MIN:
      return (r * 7 + i * 3) % 11 + (i % 2 ? -3 : 0) + 3;
    default:
      return r * 3 + i + 1;
  }
}

/* acc op x, for the small integers above (no overflow in long long; the
 * caller converts to the element type, wrapping as the type does). */
static long long fold(int op, long long a, long long x) {
  switch (op) {
    case SUM:
      return a + x;
    case PROD:
      return a * x;
    case MAX:
      return a > x ? a : x;
    case MIN:
      return a < x ? a : x;
    case LAND:
      return a && x;
    case LOR:
      return a || x;
    case LXOR:
      return !a != !x;
    case BAND:
      return a & x;
    case BOR:
      return a | x;
    case BXOR:
      return a ^ x;
    default:
      return x; /* MPI_REPLACE */
  }
}

/* The element types, read and written as long long through these. */
typedef struct {
  const char* name;
  MPI_Datatype dt;
  int size, is_float; /* the C type: unsigned char, int, long long or double */
} ctype;

static void put_elem(const ctype* t, void* p, int i, long long v) {
  if (t->is_float)
    ((double*)p)[i] = (double)v;
  else if (t->size == 1)
    ((unsigned char*)p)[i] = (unsigned char)v;
  else if (t->size == sizeof(int))
    ((int*)p)[i] = (int)v;
  else
    ((long long*)p)[i] = v;
}
static long long get_elem(const ctype* t, const void* p, int i) {
  if (t->is_float) {
    const double d = ((const double*)p)[i];
    CHECK(d == (double)(long long)d, "MPI_DOUBLE element %d: %g, expected an integer (every operand is one)", i, d);
    return (long long)d;
  }
  if (t->size == 1) return ((const unsigned char*)p)[i];
  if (t->size == sizeof(int)) return ((const int*)p)[i];
  return ((const long long*)p)[i];
}
/* v as the type holds it (unsigned char wraps). */
static long long as_type(const ctype* t, long long v) {
  unsigned char tmp[8];
  put_elem(t, tmp, 0, v);
  return get_elem(t, tmp, 0);
}

/* One type: the window holds NOPS blocks of COUNT elements; every rank
 * accumulates its operands into every rank with each op the standard
 * defines for the type, in one fence epoch; each rank checks its own. */
static void test_acc(const ctype* t) {
  void* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(NOPS * COUNT * t->size), t->size, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  for (int op = 0; op < NOPS; ++op)
    for (int i = 0; i < COUNT; ++i) put_elem(t, w, op * COUNT + i, init_of(op, i));
  unsigned char src[NOPS][COUNT * 8];
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int op = 0; op < NOPS; ++op) {
    if (t->is_float && op >= LAND && op <= BXOR) continue; /* not defined on floating point */
    for (int i = 0; i < COUNT; ++i) put_elem(t, src[op], i, operand_of(op, rank, i));
    for (int k = 0; k < size; ++k)
      CHECK_MPI(MPI_Accumulate(src[op], COUNT, t->dt, (rank + k) % size, op * COUNT, COUNT, t->dt, op_of(op), win));
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
  for (int op = 0; op < NOPS; ++op) {
    if (t->is_float && op >= LAND && op <= BXOR) continue;
    for (int i = 0; i < COUNT; ++i) {
      const long long got = get_elem(t, w, op * COUNT + i);
      if (op == REPLACE) {
        /* Atomic per element, in some order: the last writer's operand. */
        int found = 0;
        for (int r = 0; r < size; ++r) found |= got == as_type(t, operand_of(op, r, i));
        CHECK(found,
              "MPI_Accumulate(MPI_REPLACE, %s) by all %d ranks, element %d: got %lld, expected one rank's operand",
              t->name, size, i, got);
        continue;
      }
      long long want = init_of(op, i);
      for (int r = 0; r < size; ++r) want = fold(op, want, operand_of(op, r, i));
      want = as_type(t, want);
      CHECK(got == want, "MPI_Accumulate(%s, %s) by all %d ranks, element %d: got %lld, expected %lld", op_name[op],
            t->name, size, i, got, want);
    }
  }
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Accumulate, every predefined op, %s", t->name);
}

/* ---- MAXLOC / MINLOC ----------------------------------------------------- */
typedef struct {
  int v, loc;
} int_int;
typedef struct {
  double v;
  int loc;
} double_int;

/* Rank r's value of element i: ties between ranks, which the lowest
 * location must win. */
static int loc_value(int r, int i) { return (r * 5 + i) % 3 - i; }

/* Element i of a pair array of MPI_2INT (is_double 0) or MPI_DOUBLE_INT. */
static void pair_set(int is_double, void* p, int i, int v, int loc) {
  if (is_double)
    ((double_int*)p)[i].v = v, ((double_int*)p)[i].loc = loc;
  else
    ((int_int*)p)[i].v = v, ((int_int*)p)[i].loc = loc;
}
static void pair_get(int is_double, const void* p, int i, double* v, int* loc) {
  if (is_double)
    *v = ((const double_int*)p)[i].v, *loc = ((const double_int*)p)[i].loc;
  else
    *v = ((const int_int*)p)[i].v, *loc = ((const int_int*)p)[i].loc;
}

static void test_loc(int is_double) {
  const MPI_Datatype dt = is_double ? MPI_DOUBLE_INT : MPI_2INT;
  const char* name = is_double ? "MPI_DOUBLE_INT" : "MPI_2INT";
  const int esize = is_double ? sizeof(double_int) : sizeof(int_int);
  void* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(2 * COUNT * esize), esize, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  /* MAXLOC's block, then MINLOC's: initial values that never win. */
  for (int i = 0; i < COUNT; ++i) pair_set(is_double, w, i, -1000, 1000), pair_set(is_double, w, COUNT + i, 1000, 1000);
  union {
    int_int ii[COUNT];
    double_int di[COUNT];
  } src;
  for (int i = 0; i < COUNT; ++i) pair_set(is_double, &src, i, loc_value(rank, i), rank);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int k = 0; k < size; ++k) {
    CHECK_MPI(MPI_Accumulate(&src, COUNT, dt, (rank + k) % size, 0, COUNT, dt, MPI_MAXLOC, win));
    CHECK_MPI(MPI_Accumulate(&src, COUNT, dt, (rank + k) % size, COUNT, COUNT, dt, MPI_MINLOC, win));
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < COUNT; ++i) {
    int mx = -1000, mxloc = 1000, mn = 1000, mnloc = 1000;
    for (int r = 0; r < size; ++r) {
      const int x = loc_value(r, i);
      if (x > mx || (x == mx && r < mxloc)) mx = x, mxloc = r;
      if (x < mn || (x == mn && r < mnloc)) mn = x, mnloc = r;
    }
    double v;
    int loc;
    pair_get(is_double, w, i, &v, &loc);
    CHECK(v == mx && loc == mxloc,
          "MPI_Accumulate(MPI_MAXLOC, %s) by all ranks, element %d: got (%g, %d), expected (%d, %d)", name, i, v, loc,
          mx, mxloc);
    pair_get(is_double, w, COUNT + i, &v, &loc);
    CHECK(v == mn && loc == mnloc,
          "MPI_Accumulate(MPI_MINLOC, %s) by all ranks, element %d: got (%g, %d), expected (%d, %d)", name, i, v, loc,
          mn, mnloc);
  }
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Accumulate MPI_MAXLOC, MPI_MINLOC, %s", name);
}

/* ---- MPI_Get_accumulate -------------------------------------------------- */
static void test_get_accumulate(void) {
  /* On rank 0: [0, COUNT) counters, [COUNT, COUNT + 2) the swapped pair. */
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(
      MPI_Win_allocate(rma_size((COUNT + 2) * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  for (int i = 0; i < COUNT; ++i) w[i] = 100 * i;
  w[COUNT] = w[COUNT + 1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int add[COUNT], old[ITER][COUNT], seen[COUNT];
  for (int i = 0; i < COUNT; ++i) add[i] = 1, seen[i] = 100 * i;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int it = 0; it < ITER; ++it) {
    CHECK_MPI(MPI_Get_accumulate(add, COUNT, MPI_INT, old[it], COUNT, MPI_INT, 0, 0, COUNT, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    /* An atomic read: at least what the last increment left. */
    int now[COUNT];
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, now, COUNT, MPI_INT, 0, 0, COUNT, MPI_INT, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    for (int i = 0; i < COUNT; ++i) {
      CHECK(now[i] > old[it][i] && now[i] >= seen[i] && now[i] <= 100 * i + size * ITER,
            "MPI_Get_accumulate(MPI_NO_OP) after my MPI_SUM %d, element %d: read %d, fetched before %d, read before %d",
            it, i, now[i], old[it][i], seen[i]);
      seen[i] = now[i];
    }
  }
  /* An atomic swap of a pair: (rank, 1000 + rank) replaces the pair there. */
  int pair[2] = {rank, 1000 + rank}, prev[2] = {-7, -7};
  CHECK_MPI(MPI_Get_accumulate(pair, 2, MPI_INT, prev, 2, MPI_INT, 0, COUNT, 2, MPI_INT, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock_all(win));

  int* all = rank == 0 ? malloc((size_t)size * ITER * COUNT * sizeof(int)) : NULL;
  int* prevs = rank == 0 ? malloc((size_t)(size + 1) * 2 * sizeof(int)) : NULL;
  MPI_Gather(old, ITER * COUNT, MPI_INT, all, ITER * COUNT, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(prev, 2, MPI_INT, prevs, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int i = 0; i < COUNT; ++i)
      CHECK(w[i] == 100 * i + size * ITER, "MPI_Get_accumulate(MPI_SUM) counter %d: %d, expected %d", i, w[i],
            100 * i + size * ITER);
    prevs[2 * size] = w[COUNT], prevs[2 * size + 1] = w[COUNT + 1];
    CHECK_MPI(MPI_Win_unlock(0, win));
    /* Per element, the fetched values are 100 i + 0 .. size*ITER-1, once each. */
    int* hit = calloc((size_t)size * ITER, sizeof(int));
    for (int i = 0; i < COUNT; ++i) {
      memset(hit, 0, (size_t)size * ITER * sizeof(int));
      for (long k = 0; k < (long)size * ITER; ++k) {
        const int v = all[k * COUNT + i] - 100 * i;
        CHECK(v >= 0 && v < size * ITER && !hit[v], "MPI_Get_accumulate(MPI_SUM) element %d: fetched %d %s", i,
              v + 100 * i, v >= 0 && v < size * ITER ? "twice" : "out of range");
        hit[v] = 1;
      }
    }
    free(hit);
    /* The swaps (atomic per element): per element, the initial value and
     * each rank's appear exactly once among the results and the final value. */
    for (int e = 0; e < 2; ++e) {
      int* cnt = calloc((size_t)size + 1, sizeof(int));
      for (int k = 0; k <= size; ++k) {
        int v = prevs[2 * k + e];
        if (e == 1 && v != -1) v -= 1000;
        CHECK(v >= -1 && v < size, "MPI_Get_accumulate(MPI_REPLACE) element %d: result %d out of range", e,
              prevs[2 * k + e]);
        ++cnt[v + 1];
      }
      for (int v = -1; v < size; ++v)
        CHECK(cnt[v + 1] == 1,
              "MPI_Get_accumulate(MPI_REPLACE) element %d: value of rank %d seen %d times among the "
              "results and the final value, expected once",
              e, v, cnt[v + 1]);
      free(cnt);
    }
    free(all);
    free(prevs);
  }
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Get_accumulate MPI_SUM, MPI_NO_OP, MPI_REPLACE");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_fetch_and_op();
  test_compare_and_swap();
  const ctype types[4] = {{"MPI_INT", MPI_INT, sizeof(int), 0},
                          {"MPI_DOUBLE", MPI_DOUBLE, sizeof(double), 1},
                          {"MPI_LONG_LONG", MPI_LONG_LONG, sizeof(long long), 0},
                          {"MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, 1, 0}};
  for (int t = 0; t < 4; ++t) test_acc(&types[t]);
  test_loc(0);
  test_loc(1);
  test_get_accumulate();
  RMA_OK(rank, "atomics: %d ranks", size);
  MPI_Finalize();
  return 0;
}
