/* Generalized requests (MPI_Grequest_start / _complete): the query function
 * fills the status every completing call returns (source, tag, count,
 * cancelled), the free function runs once (at the wait, or at
 * MPI_Grequest_complete after MPI_Request_free), MPI_Cancel calls the cancel
 * function with whether the request completed, MPI_Request_get_status
 * queries without freeing, a query's error code comes back from MPI_Wait
 * (MPI_ERR_IN_STATUS from MPI_Waitall), a generalized request waits beside
 * a receive in MPI_Waitall, and a thread completes one while the main thread
 * waits for it in MPI_Wait (MPI_THREAD_MULTIPLE). */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "lz_test.h"

struct state {
  int queries, frees, cancels, last_complete_flag, query_error, cancelled;
  int source, tag, count;
  MPI_Request req; /* for the completing thread */
};

static int query_fn(void *extra, MPI_Status *st) {
  struct state *s = extra;
  ++s->queries;
  st->MPI_SOURCE = s->source;
  st->MPI_TAG = s->tag;
  st->MPI_ERROR = s->query_error;
  MPI_Status_set_elements(st, MPI_INT, s->count);
  MPI_Status_set_cancelled(st, s->cancelled);
  return s->query_error;
}
static int free_fn(void *extra) {
  ++((struct state *)extra)->frees;
  return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
  struct state *s = extra;
  ++s->cancels;
  s->last_complete_flag = complete;
  if (!complete) s->cancelled = 1;
  return MPI_SUCCESS;
}

static void *completer(void *arg) {
  usleep(50000);
  MPI_Grequest_complete(((struct state *)arg)->req);
  return NULL;
}

int main(int argc, char **argv) {
  int provided, rank, size, n, flag;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request r;
  MPI_Status st;

  /* Completed before the wait; the query's status; one free. */
  struct state a = {.source = 3, .tag = 42, .count = 7};
  CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &r) == MPI_SUCCESS, "start");
  MPI_Test(&r, &flag, &st);
  CHECK(!flag && a.queries == 0, "not complete before MPI_Grequest_complete");
  MPI_Grequest_complete(r);
  CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "wait");
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 42 && n == 7, "status from the query: %d %d %d", st.MPI_SOURCE,
        st.MPI_TAG, n);
  CHECK(a.queries == 1 && a.frees == 1, "query %d, free %d", a.queries, a.frees);

  /* MPI_Request_get_status queries, the request stays; then Test retires. */
  struct state b = {.count = 2};
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &r);
  MPI_Grequest_complete(r);
  MPI_Request_get_status(r, &flag, &st);
  CHECK(flag && b.queries == 1 && b.frees == 0 && r != MPI_REQUEST_NULL, "get_status");
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(flag && b.queries == 2 && b.frees == 1, "test after get_status: query %d free %d", b.queries, b.frees);

  /* Freed before it completes: the free function runs at completion. The
   * program keeps its own handle to complete it (as the standard's example
   * does, through its extra_state). */
  struct state c2 = {0};
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c2, &c2.req);
  MPI_Request h = c2.req;
  MPI_Request_free(&h);
  MPI_Grequest_complete(c2.req);
  CHECK(c2.frees == 1 && c2.queries == 0, "free at complete: free %d query %d", c2.frees, c2.queries);

  /* Cancel: the cancel function learns it had not completed. */
  struct state d = {0};
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &d, &r);
  MPI_Cancel(&r);
  CHECK(d.cancels == 1 && d.last_complete_flag == 0, "cancel function called");
  MPI_Grequest_complete(r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag, "the status says cancelled");

  /* A query's error comes back. */
  struct state e = {.query_error = MPI_ERR_OTHER};
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &e, &r);
  MPI_Grequest_complete(r);
  int rc = MPI_Wait(&r, &st), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER && e.frees == 1, "query error from MPI_Wait: class %d", cls);
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &e, &r);
  MPI_Grequest_complete(r);
  MPI_Request two[2] = {r, MPI_REQUEST_NULL};
  MPI_Status sts[2];
  rc = MPI_Waitall(2, two, sts);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPI_ERR_OTHER, "Waitall: class %d, status error %d", cls,
        sts[0].MPI_ERROR);
  CHECK(MPI_Grequest_complete(MPI_REQUEST_NULL) != MPI_SUCCESS, "completing MPI_REQUEST_NULL refused");

  /* Beside a receive in MPI_Waitall. */
  int in = -1, out = rank;
  struct state f = {.count = 1};
  MPI_Request reqs[3];
  MPI_Irecv(&in, 1, MPI_INT, (rank - 1 + size) % size, 9, MPI_COMM_WORLD, &reqs[0]);
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &f, &reqs[1]);
  MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &reqs[2]);
  MPI_Grequest_complete(reqs[1]);
  CHECK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
  CHECK(in == (rank - 1 + size) % size && f.frees == 1, "waitall: received %d", in);

  /* Completed by another thread while this one waits. */
  if (provided == MPI_THREAD_MULTIPLE) {
    struct state g = {.tag = 5};
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &g.req);
    MPI_Request w = g.req;
    pthread_t t;
    pthread_create(&t, NULL, completer, &g);
    CHECK(MPI_Wait(&w, &st) == MPI_SUCCESS && st.MPI_TAG == 5, "wait for a thread's completion");
    pthread_join(t, NULL);
    CHECK(g.frees == 1, "freed once");
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("grequest: ok\n");
  MPI_Finalize();
  return 0;
}
