/* Window creation and window objects: MPI_Win_create, MPI_Win_allocate,
 * MPI_Win_allocate_shared (MPI_Win_shared_query of every rank and of
 * MPI_PROC_NULL, loads and stores into a neighbour's segment after
 * MPI_Win_sync and a barrier), MPI_Win_create_dynamic (attach, detach, puts at
 * addresses exchanged with MPI_Allgather); the attributes MPI_WIN_BASE,
 * _SIZE, _DISP_UNIT, _CREATE_FLAVOR and _MODEL; names, the group, info,
 * keyvals (the delete callback runs at MPI_Win_delete_attr and MPI_Win_free),
 * error handlers (MPI_ERRORS_RETURN gives MPI_ERR_RANK for a put to rank
 * size; a handler of MPI_Win_create_errhandler is called). Any np >= 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rma_test.h"

#define N 16

static int rank, size;

/* Checks the five predefined attributes of a window. */
static void check_attrs(MPI_Win win, const char* what, void* base, MPI_Aint bytes, int disp_unit, int flavor) {
  void* b = NULL;
  MPI_Aint* sz = NULL;
  int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == base, "%s: MPI_WIN_BASE: flag %d, %p, expected %p", what, flag, b, base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
  CHECK(flag && *sz == bytes, "%s: MPI_WIN_SIZE: flag %d, %ld, expected %ld", what, flag, flag ? (long)*sz : -1L,
        (long)bytes);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == disp_unit, "%s: MPI_WIN_DISP_UNIT: flag %d, %d, expected %d", what, flag, flag ? *du : -1,
        disp_unit);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
  CHECK(flag && *fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR: flag %d, %d, expected %d", what, flag, flag ? *fl : -1,
        flavor);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL: flag %d, %d, expected MPI_WIN_UNIFIED (%d)", what, flag,
        flag ? *model : -1, MPI_WIN_UNIFIED);
}

/* Each rank puts N ints into its right neighbour's window at index 0 and
 * gets N ints from its left neighbour's at index N (fence epochs). The
 * window holds 2N ints at displacement unit sizeof(int). */
static void ring_put_get(MPI_Win win, int* mem, const char* what) {
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int src[N], got[N];
  for (int i = 0; i < N; ++i) {
    src[i] = rank * 1000 + i;
    mem[N + i] = rank * 1000 + 500 + i;
    got[i] = -1;
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
  CHECK_MPI(MPI_Get(got, N, MPI_INT, left, N, N, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) {
    CHECK(mem[i] == left * 1000 + i, "%s: MPI_Put from rank %d, element %d: got %d, expected %d", what, left, i, mem[i],
          left * 1000 + i);
    CHECK(got[i] == left * 1000 + 500 + i, "%s: MPI_Get from rank %d, element %d: got %d, expected %d", what, left, i,
          got[i], left * 1000 + 500 + i);
  }
}

static void test_create(void) {
  int* mem = malloc(2 * N * sizeof(int));
  MPI_Win win;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "false");
  CHECK_MPI(MPI_Win_create(mem, 2 * N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win));
  MPI_Info_free(&info);
  check_attrs(win, "MPI_Win_create", mem, 2 * N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);
  ring_put_get(win, mem, "MPI_Win_create");

  /* Names. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  /* (No check of the name before one is set: Open MPI gives "ucx window 3".) */
  CHECK_MPI(MPI_Win_set_name(win, "rma window"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 10 && strcmp(name, "rma window") == 0, "MPI_Win_get_name: '%s' (%d), expected 'rma window' (10)", name,
        len);

  /* The group is the communicator's. */
  MPI_Group wg, cg;
  int cmp = -1;
  CHECK_MPI(MPI_Win_get_group(win, &wg));
  MPI_Comm_group(MPI_COMM_WORLD, &cg);
  MPI_Group_compare(wg, cg, &cmp);
  CHECK(cmp == MPI_IDENT, "MPI_Win_get_group vs MPI_Comm_group(MPI_COMM_WORLD): %d, expected MPI_IDENT", cmp);
  int gsize = -1, grank = -1;
  MPI_Group_size(wg, &gsize);
  MPI_Group_rank(wg, &grank);
  CHECK(gsize == size && grank == rank, "window group: size %d rank %d, expected %d %d", gsize, grank, size, rank);
  MPI_Group_free(&wg);
  MPI_Group_free(&cg);

  /* Info: a new object each time; a hint reported has the value set. */
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  int nkeys = -1, flag = 0;
  CHECK_MPI(MPI_Win_get_info(win, &used));
  CHECK(used != MPI_INFO_NULL, "MPI_Win_get_info returned MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
  CHECK(nkeys >= 0, "MPI_Info_get_nkeys of the window's info: %d", nkeys);
  MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(!flag || strcmp(value, "false") == 0, "MPI_Win_get_info: no_locks = '%s', expected 'false'", value);
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
  CHECK_MPI(MPI_Win_set_info(win, info));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_get_info(win, &used));
  MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(!flag || strcmp(value, "rar,raw,war,waw") == 0,
        "MPI_Win_get_info after MPI_Win_set_info: accumulate_ordering = '%s'", value);
  MPI_Info_free(&used);
  ring_put_get(win, mem, "MPI_Win_create after MPI_Win_set_info");

  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
  free(mem);
  RMA_OK(rank, "MPI_Win_create, attributes, name, group, info");
}

static void test_allocate(void) {
  /* Sizes differ by rank (at least 2N ints). */
  const MPI_Aint bytes = (2 * N + rank) * sizeof(int);
  int* mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  CHECK(mem != NULL, "MPI_Win_allocate: NULL base");
  check_attrs(win, "MPI_Win_allocate", mem, bytes, sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
  ring_put_get(win, mem, "MPI_Win_allocate");
  CHECK_MPI(MPI_Win_free(&win));

  /* Size 0 everywhere but rank 0: puts to rank 0 only. */
  const MPI_Aint b0 = rank == 0 ? size * (MPI_Aint)sizeof(int) : 0;
  CHECK_MPI(MPI_Win_allocate(b0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  int one = rank + 7;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      CHECK(mem[r] == r + 7, "MPI_Win_allocate (size 0 elsewhere): MPI_Put from rank %d: got %d, expected %d", r,
            mem[r], r + 7);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "MPI_Win_allocate");
}

static void test_allocate_shared(void) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  /* Rank 0 of the node has no memory when others do, so that the query of
   * MPI_PROC_NULL must skip it; the others 64 ints times (rank + 1). */
  const MPI_Aint count = nrank == 0 && nsize > 1 ? 0 : 64 * (nrank + 1);
  int* mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(count * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  int *fl = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
  CHECK(flag && *fl == MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared: MPI_WIN_CREATE_FLAVOR %d, expected %d",
        flag ? *fl : -1, MPI_WIN_FLAVOR_SHARED);
  int* model = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_Win_allocate_shared: MPI_WIN_MODEL %d, expected MPI_WIN_UNIFIED",
        flag ? *model : -1);

  /* Every segment: its size and displacement unit; contiguous by default. */
  int** seg = malloc(nsize * sizeof(int*));
  MPI_Aint* segsize = malloc(nsize * sizeof(MPI_Aint));
  for (int r = 0; r < nsize; ++r) {
    int du = -1;
    CHECK_MPI(MPI_Win_shared_query(win, r, &segsize[r], &du, &seg[r]));
    const MPI_Aint want = (r == 0 && nsize > 1 ? 0 : 64 * (r + 1)) * (MPI_Aint)sizeof(int);
    CHECK(segsize[r] == want && du == (int)sizeof(int),
          "MPI_Win_shared_query(%d): size %ld, disp_unit %d, expected %ld, %d", r, (long)segsize[r], du, (long)want,
          (int)sizeof(int));
    if (r > 0 && segsize[r - 1] > 0)
      CHECK((char*)seg[r] == (char*)seg[r - 1] + segsize[r - 1],
            "MPI_Win_shared_query(%d): base %p, expected right after rank %d's (%p + %ld): not contiguous", r,
            (void*)seg[r], r - 1, (void*)seg[r - 1], (long)segsize[r - 1]);
  }
  if (count > 0)
    CHECK(seg[nrank] == mem, "MPI_Win_shared_query(own rank): %p, MPI_Win_allocate_shared gave %p", (void*)seg[nrank],
          (void*)mem);
  MPI_Aint qsize = -1;
  int qdu = -1;
  int* qbase = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qdu, &qbase));
  const int first = nsize > 1 ? 1 : 0;
  CHECK(qsize == segsize[first] && qbase == seg[first] && qdu == (int)sizeof(int),
        "MPI_Win_shared_query(MPI_PROC_NULL): size %ld base %p, expected rank %d's segment (%ld, %p)", (long)qsize,
        (void*)qbase, first, (long)segsize[first], (void*)seg[first]);

  /* Stores into one's own segment, read by the next rank; then stores into
   * the next rank's segment, read by its owner. */
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (MPI_Aint i = 0; i < count; ++i) mem[i] = nrank * 10000 + (int)i;
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(node);
  CHECK_MPI(MPI_Win_sync(win));
  const int next = (nrank + 1) % nsize, prev = (nrank - 1 + nsize) % nsize;
  const MPI_Aint ncount = segsize[next] / sizeof(int);
  for (MPI_Aint i = 0; i < ncount; ++i)
    CHECK(seg[next][i] == next * 10000 + (int)i, "load from rank %d's shared segment, element %ld: got %d, expected %d",
          next, (long)i, seg[next][i], next * 10000 + (int)i);
  MPI_Barrier(node);
  for (MPI_Aint i = 0; i < ncount; ++i) seg[next][i] = -(nrank * 10000 + (int)i);
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(node);
  CHECK_MPI(MPI_Win_sync(win));
  for (MPI_Aint i = 0; i < count; ++i)
    CHECK(mem[i] == -(prev * 10000 + (int)i),
          "store by rank %d into my shared segment, element %ld: got %d, expected %d", prev, (long)i, mem[i],
          -(prev * 10000 + (int)i));
  MPI_Barrier(node); /* before anyone puts into what the others still read */
  CHECK_MPI(MPI_Win_unlock_all(win));

  /* An RMA put through the shared window too. */
  if (ncount > 0) {
    int v = 4242 + nrank;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(next, win));
  }
  MPI_Barrier(node);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, nrank, 0, win));
  if (count > 0)
    CHECK(mem[0] == 4242 + prev, "MPI_Put into shared window from rank %d: got %d, expected %d", prev, mem[0],
          4242 + prev);
  CHECK_MPI(MPI_Win_unlock(nrank, win));
  CHECK_MPI(MPI_Win_free(&win));
  free(seg);
  free(segsize);
  MPI_Comm_free(&node);
  RMA_OK(rank, "MPI_Win_allocate_shared, MPI_Win_shared_query, load/store");
}

static void test_dynamic(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attrs(win, "MPI_Win_create_dynamic", MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
  /* Two regions, their addresses known to all. */
  int *a = malloc(N * sizeof(int)), *b = malloc(2 * N * sizeof(int));
  for (int i = 0; i < N; ++i) a[i] = -1;
  for (int i = 0; i < 2 * N; ++i) b[i] = -1;
  CHECK_MPI(MPI_Win_attach(win, a, N * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, b, 2 * N * sizeof(int)));
  MPI_Aint mine[2], *all = malloc(2 * size * sizeof(MPI_Aint));
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(b, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);

  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  int src[N];
  for (int i = 0; i < N; ++i) src[i] = rank * 100 + i;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, all[2 * right], N, MPI_INT, win));
  /* Into the middle of the second region: displacement = address + offset. */
  CHECK_MPI(MPI_Put(src, N, MPI_INT, right, MPI_Aint_add(all[2 * right + 1], N * sizeof(int)), N, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  for (int i = 0; i < N; ++i) {
    CHECK(a[i] == left * 100 + i, "dynamic window, region 1: MPI_Put from rank %d, element %d: got %d, expected %d",
          left, i, a[i], left * 100 + i);
    CHECK(b[i] == -1, "dynamic window, region 2, element %d: got %d, expected untouched -1", i, b[i]);
    CHECK(b[N + i] == left * 100 + i, "dynamic window, region 2: MPI_Put from rank %d, element %d: got %d, expected %d",
          left, N + i, b[N + i], left * 100 + i);
  }
  CHECK_MPI(MPI_Win_unlock(rank, win));

  /* A get back of the region the left neighbour wrote into on the right. */
  int got[N];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_MPI(MPI_Get(got, N, MPI_INT, right, all[2 * right], N, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(right, win));
  for (int i = 0; i < N; ++i)
    CHECK(got[i] == rank * 100 + i, "dynamic window: MPI_Get from rank %d, element %d: got %d, expected %d", right, i,
          got[i], rank * 100 + i);

  /* Detach once no one accesses the regions any more. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_detach(win, a));
  CHECK_MPI(MPI_Win_detach(win, b));
  CHECK_MPI(MPI_Win_free(&win));
  free(a);
  free(b);
  free(all);
  RMA_OK(rank, "MPI_Win_create_dynamic, MPI_Win_attach/detach");
}

static int deletes = 0;
static int* deleted_value = NULL;

static int delete_fn(MPI_Win win, int keyval, void* val, void* extra) {
  (void)win, (void)keyval;
  CHECK(extra == (void*)&deletes, "delete callback: extra_state %p, expected %p", extra, (void*)&deletes);
  deleted_value = val;
  ++deletes;
  return MPI_SUCCESS;
}

static void test_keyval(void) {
  int *mem = NULL, keyval = MPI_KEYVAL_INVALID, flag = 0, v1 = 11, v2 = 22, *got = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &keyval, &deletes));
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(!flag, "MPI_Win_get_attr of a keyval never set: flag %d, expected 0", flag);
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &v1));
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(flag && got == &v1, "MPI_Win_get_attr: flag %d, %p, expected %p", flag, (void*)got, (void*)&v1);
  CHECK(deletes == 0, "delete callback ran %d times before any delete", deletes);
  /* Overwriting deletes the old value. */
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &v2));
  CHECK(deletes == 1 && deleted_value == &v1, "MPI_Win_set_attr over a value: %d deletes (of %p), expected 1 (of %p)",
        deletes, (void*)deleted_value, (void*)&v1);
  CHECK_MPI(MPI_Win_delete_attr(win, keyval));
  CHECK(deletes == 2 && deleted_value == &v2, "MPI_Win_delete_attr: %d deletes (of %p), expected 2 (of %p)", deletes,
        (void*)deleted_value, (void*)&v2);
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(!flag, "MPI_Win_get_attr after MPI_Win_delete_attr: flag %d, expected 0", flag);
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &v1));
  /* The keyval freed while in use: the window still runs the callback. */
  CHECK_MPI(MPI_Win_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval did not set MPI_KEYVAL_INVALID");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(deletes == 3 && deleted_value == &v1, "MPI_Win_free: %d deletes (of %p), expected 3 (of %p)", deletes,
        (void*)deleted_value, (void*)&v1);
  RMA_OK(rank, "window keyvals, delete callback at MPI_Win_free");
}

static int handler_calls = 0, handler_class = -1;
static MPI_Win handler_win = MPI_WIN_NULL;

static void win_handler(MPI_Win* win, int* code, ...) {
  ++handler_calls;
  handler_win = *win;
  MPI_Error_class(*code, &handler_class);
}

static void test_errhandler(void) {
  int *mem = NULL, v = 1, cls = -1;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  *mem = 0;
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&eh);

  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  int rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
  CHECK(rc != MPI_SUCCESS,
        "MPI_Put to rank %d (the window's size) under MPI_ERRORS_RETURN: MPI_SUCCESS, expected an error", size);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "MPI_Put to rank %d: error class %d, expected MPI_ERR_RANK (%d)", size, cls, MPI_ERR_RANK);
  CHECK_MPI(MPI_Win_unlock_all(win));

  MPI_Errhandler mine;
  CHECK_MPI(MPI_Win_create_errhandler(win_handler, &mine));
  CHECK_MPI(MPI_Win_set_errhandler(win, mine));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK(handler_calls == 1 && handler_win == win && handler_class == MPI_ERR_RANK,
        "MPI_Put to rank %d with a user error handler: %d calls (window %s), class %d, expected 1 call, MPI_ERR_RANK",
        size, handler_calls, handler_win == win ? "right" : "wrong", handler_class);
  CHECK(rc != MPI_SUCCESS, "MPI_Put to rank %d after the user handler returned: MPI_SUCCESS, expected its error", size);
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 2 && handler_class == MPI_ERR_OTHER,
        "MPI_Win_call_errhandler(MPI_ERR_OTHER): %d calls, class %d, expected 2 calls, MPI_ERR_OTHER", handler_calls,
        handler_class);
  CHECK_MPI(MPI_Errhandler_free(&mine));

  /* The window still works after the errors. */
  CHECK_MPI(MPI_Win_fence(0, win));
  v = rank + 1;
  CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0)
    CHECK(*mem == size * (size + 1) / 2, "MPI_Accumulate after errors: %d, expected %d", *mem, size * (size + 1) / 2);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "window error handlers");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_create();
  test_allocate();
  test_allocate_shared();
  test_dynamic();
  test_keyval();
  test_errhandler();
  MPI_Barrier(MPI_COMM_WORLD);
  RMA_OK(rank, "win_flavors: %d ranks", size);
  MPI_Finalize();
  return 0;
}
