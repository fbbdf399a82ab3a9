/* The MPI tool interface (MPI_T_*): control variables are Lazarus'
 * parameters, written before MPI_Init and in force after it; performance
 * variables count what the job does; categories hold every variable once.
 *
 *   mpi_t        np >= 1: every check below
 *   mpi_t cr     the same, then one LZ_Checkpoint (run with cr=app and
 *                cr_app_every=1): the checkpoint variables count it */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <lazarus/checkpoint.h>

#include "lz_test.h"

/* Before MPI_Init (and after MPI_T_finalize) CHECK cannot abort the job. */
#define EARLY(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static int cvar_index(const char *name) {
  int i = -1, rc = MPI_T_cvar_get_index(name, &i);
  EARLY(rc == MPI_SUCCESS, "MPI_T_cvar_get_index(%s) = %d", name, rc);
  return i;
}

static unsigned long long read_ull_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  int rc = MPI_T_pvar_read(s, h, &v);
  CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_read = %d", rc);
  return v;
}

/* The handle of pvar `name` of `cls` in `s`. */
static MPI_T_pvar_handle pvar_handle(MPI_T_pvar_session s, const char *name, int cls) {
  int idx = -1, count = 0, rc = MPI_T_pvar_get_index(name, cls, &idx);
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  CHECK(rc == MPI_SUCCESS, "MPI_T_pvar_get_index(%s) = %d", name, rc);
  rc = MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count);
  CHECK(rc == MPI_SUCCESS && count == 1, "MPI_T_pvar_handle_alloc(%s) = %d, count %d", name, rc, count);
  return h;
}

/* Before MPI_Init: the interface, every control variable's description, a
 * write the runtime must take. */
static void before_init(void) {
  int provided = -1, n = 0, rc, i, idx, count, bad;
  char name[256], desc[1024];
  MPI_T_cvar_handle h;
  EARLY(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "MPI_T call before MPI_T_init_thread");
  EARLY(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread failed");
  EARLY(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  EARLY(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n > 50, "%d control variables", n);
  for (i = 0; i < n; ++i) {
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, binding, scope;
    MPI_Datatype dt;
    MPI_T_enum et;
    rc = MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len, &binding, &scope);
    EARLY(rc == MPI_SUCCESS, "MPI_T_cvar_get_info(%d) = %d", i, rc);
    EARLY(name_len == (int)strlen(name) + 1 && name_len > 1, "cvar %d: name_len %d for '%s'", i, name_len, name);
    EARLY(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s: verbosity %d",
          name, verbosity);
    EARLY(binding == MPI_T_BIND_NO_OBJECT, "%s: binding %d", name, binding);
    EARLY(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_DOUBLE || dt == MPI_CHAR, "%s: datatype", name);
    EARLY(desc_len > 1, "%s: no description", name);
    EARLY(cvar_index(name) == i, "%s: index", name);
    if (strcmp(name, "transport") == 0) EARLY(scope == MPI_T_SCOPE_ALL_EQ, "transport: scope %d", scope);
    if (et != MPI_T_ENUM_NULL) { /* an enumeration: its items */
      int items = 0, value = -1, len = sizeof desc;
      EARLY(MPI_T_enum_get_info(et, &items, NULL, NULL) == MPI_SUCCESS && items > 1, "%s: %d items", name, items);
      EARLY(MPI_T_enum_get_item(et, items - 1, &value, desc, &len) == MPI_SUCCESS && value == items - 1,
            "%s: last item", name);
      EARLY(MPI_T_enum_get_item(et, items, &value, desc, &len) == MPI_T_ERR_INVALID_ITEM, "%s: item past the end", name);
    }
  }
  EARLY(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "index past the end");
  EARLY(MPI_T_cvar_get_index("no_such_parameter", &idx) == MPI_T_ERR_INVALID_NAME, "unknown name");
  { /* a short buffer gets what fits, terminated */
    int len = 4;
    EARLY(MPI_T_cvar_get_info(cvar_index("p2p_eager_limit"), name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                  MPI_SUCCESS && len == 4 && strcmp(name, "p2p") == 0,
          "short name buffer: '%s' %d", name, len);
  }

  /* p2p_eager_limit 1k, written now: MPI_Init's runtime must use it (the
   * rendezvous counter below shows it). A bad value of an int is refused. */
  rc = MPI_T_cvar_handle_alloc(cvar_index("p2p_eager_limit"), NULL, &h, &count);
  EARLY(rc == MPI_SUCCESS && count == 1, "handle of p2p_eager_limit: %d", rc);
  {
    unsigned long long v = 1024, back = 0;
    EARLY(MPI_T_cvar_write(h, &v) == MPI_SUCCESS, "write p2p_eager_limit");
    EARLY(MPI_T_cvar_read(h, &back) == MPI_SUCCESS && back == 1024, "p2p_eager_limit reads %llu", back);
  }
  EARLY(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL, "handle free");
  EARLY(MPI_T_cvar_read(h, &bad) == MPI_T_ERR_INVALID_HANDLE, "read through a freed handle");
  { /* a string: the transport selection, as text */
    char text[8192];
    EARLY(MPI_T_cvar_handle_alloc(cvar_index("transport"), NULL, &h, &count) == MPI_SUCCESS && count > 1 &&
              count <= (int)sizeof text,
          "handle of transport, count %d", count);
    EARLY(MPI_T_cvar_read(h, text) == MPI_SUCCESS, "read transport");
    MPI_T_cvar_handle_free(&h);
  }
  { /* an enumeration's value out of its items is refused */
    int i2, nn, found = 0;
    MPI_T_cvar_get_num(&nn);
    for (i2 = 0; i2 < nn && !found; ++i2) {
      MPI_T_enum et;
      MPI_T_cvar_get_info(i2, NULL, NULL, NULL, NULL, &et, NULL, NULL, NULL, NULL);
      if (et == MPI_T_ENUM_NULL) continue;
      found = 1;
      EARLY(MPI_T_cvar_handle_alloc(i2, NULL, &h, &count) == MPI_SUCCESS, "enum handle");
      bad = 1000;
      EARLY(MPI_T_cvar_write(h, &bad) == MPI_ERR_ARG, "an enumeration took value 1000");
      MPI_T_cvar_handle_free(&h);
    }
  }
}

/* Every variable in exactly one category, every category reachable. */
static void categories(void) {
  int ncat = 0, ncv = 0, npv = 0, c, tcat = -1, sum_cv = 0, sum_pv = 0, sum_sub = 0;
  MPI_T_category_get_num(&ncat);
  MPI_T_cvar_get_num(&ncv);
  MPI_T_pvar_get_num(&npv);
  CHECK(ncat >= 5, "%d categories", ncat);
  for (c = 0; c < ncat; ++c) {
    int cv = -1, pv = -1, sub = -1;
    char name[128];
    int len = sizeof name;
    CHECK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &cv, &pv, &sub) == MPI_SUCCESS, "category %d", c);
    sum_cv += cv;
    sum_pv += pv;
    sum_sub += sub;
    if (cv > 0) {
      int *idx = malloc(sizeof(int) * (size_t)cv), k, other = -1;
      CHECK(MPI_T_category_get_cvars(c, cv, idx) == MPI_SUCCESS, "%s: cvars", name);
      for (k = 0; k < cv; ++k) CHECK(idx[k] >= 0 && idx[k] < ncv, "%s: cvar index %d", name, idx[k]);
      CHECK(MPI_T_category_get_index(name, &other) == MPI_SUCCESS && other == c, "%s: index", name);
      free(idx);
    }
  }
  CHECK(sum_cv == ncv, "categories hold %d control variables of %d", sum_cv, ncv);
  CHECK(sum_pv == npv, "categories hold %d performance variables of %d", sum_pv, npv);
  /* top level: the four frameworks, lazarus (the registry) and runtime */
  CHECK(sum_sub == ncat - 6, "%d subcategories of %d categories (6 are top-level)", sum_sub, ncat);
  CHECK(MPI_T_category_get_index("transport", &tcat) == MPI_SUCCESS, "category transport");
  {
    int sub = 0, subs[64], k, has_tcp = 0, stamp = -1;
    MPI_T_category_get_info(tcat, NULL, NULL, NULL, NULL, NULL, NULL, &sub);
    CHECK(sub >= 3 && sub <= 64, "transport has %d subcategories", sub);
    MPI_T_category_get_categories(tcat, sub, subs);
    for (k = 0; k < sub; ++k) {
      char name[64];
      int len = sizeof name;
      MPI_T_category_get_info(subs[k], name, &len, NULL, NULL, NULL, NULL, NULL);
      has_tcp |= strcmp(name, "transport_tcp") == 0;
    }
    CHECK(has_tcp, "no transport_tcp under transport");
    CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS, "category_changed");
  }
}

int main(int argc, char **argv) {
  int rank, size, i, rc, idx, value;
  const int cr = argc > 1 && strcmp(argv[1], "cr") == 0;
  MPI_T_pvar_session s;
  MPI_T_pvar_handle sent_h[16], unexp, high, rndv;
  int nsent = 0, npv = 0;
  MPI_T_cvar_handle h;
  unsigned long long before_sent = 0, after_sent = 0, v;

  before_init();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* The runtime took the write; no write now. */
  CHECK(MPI_T_cvar_handle_alloc(cvar_index("p2p_eager_limit"), NULL, &h, &i) == MPI_SUCCESS, "handle");
  v = 0;
  CHECK(MPI_T_cvar_read(h, &v) == MPI_SUCCESS && v == 1024, "after MPI_Init, p2p_eager_limit reads %llu", v);
  v = 2048;
  rc = MPI_T_cvar_write(h, &v);
  CHECK(rc == MPI_T_ERR_CVAR_SET_NOT_NOW, "a write after MPI_Init returned %d", rc);
  MPI_T_cvar_handle_free(&h);
  categories();

  /* The traffic counters of every transport, summed: they must grow by at
   * least the messages this rank sends. */
  CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session");
  MPI_T_pvar_get_num(&npv);
  for (i = 0; i < npv && nsent < 16; ++i) {
    char name[128];
    int len = sizeof name, cls, ro, cont, atomic, count;
    MPI_Datatype dt;
    CHECK(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &dt, NULL, NULL, NULL, NULL, &ro, &cont, &atomic) ==
              MPI_SUCCESS,
          "pvar %d", i);
    CHECK(cont == 1 && (dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_DOUBLE), "%s: continuous %d", name, cont);
    if (strncmp(name, "transport_", 10) != 0 || strstr(name, "_messages_sent") == NULL) continue;
    CHECK(cls == MPI_T_PVAR_CLASS_COUNTER && ro == 0, "%s: class %d readonly %d", name, cls, ro);
    CHECK(MPI_T_pvar_handle_alloc(s, i, NULL, &sent_h[nsent], &count) == MPI_SUCCESS, "%s: handle", name);
    before_sent += read_ull_pvar(s, sent_h[nsent]);
    ++nsent;
  }
  CHECK(nsent >= 3, "%d transports count messages", nsent);
  unexp = pvar_handle(s, "p2p_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL);
  high = pvar_handle(s, "p2p_unexpected_messages_highwater", MPI_T_PVAR_CLASS_HIGHWATERMARK);
  rndv = pvar_handle(s, "p2p_rendezvous_sends", MPI_T_PVAR_CLASS_COUNTER);
  CHECK(read_ull_pvar(s, rndv) == 0, "a new handle of a counter reads 0");
  rc = MPI_T_pvar_start(s, rndv);
  CHECK(rc == MPI_T_ERR_PVAR_NO_STARTSTOP, "start of a continuous variable: %d", rc);
  CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start of all handles");
  rc = MPI_T_pvar_reset(s, high);
  CHECK(rc == MPI_T_ERR_PVAR_NO_WRITE, "reset of a high-water mark: %d", rc);

  { /* 8 messages to itself before their receives: unexpected, counted.
     * The level is the process's: no other message may arrive unexpected
     * meanwhile. The others' "done" tokens (tag 99) are received into
     * receives posted first, and nothing else is sent to this rank before
     * its token went out. */
    enum { N = 8 };
    int out[N], in[N], tok = 0, *toks = malloc(sizeof(int) * (size_t)size);
    MPI_Request rq[N], *trq = malloc(sizeof(MPI_Request) * (size_t)(2 * size));
    unsigned long long level0;
    for (i = 0; i < size; ++i) {
      trq[i] = trq[size + i] = MPI_REQUEST_NULL;
      if (i != rank) MPI_Irecv(&toks[i], 1, MPI_INT, i, 99, MPI_COMM_WORLD, &trq[i]);
    }
    level0 = read_ull_pvar(s, unexp);
    int arrived = 0;
    for (i = 0; i < N; ++i) {
      out[i] = rank * 100 + i;
      MPI_Isend(&out[i], 1, MPI_INT, rank, 5 + i, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
    while (!arrived) /* the last one here: all are */
      MPI_Iprobe(rank, 5 + N - 1, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE);
    CHECK(read_ull_pvar(s, unexp) >= level0 + N, "unexpected level %llu, was %llu", read_ull_pvar(s, unexp), level0);
    CHECK(read_ull_pvar(s, high) >= level0 + N, "unexpected high-water mark %llu", read_ull_pvar(s, high));
    for (i = 0; i < N; ++i) {
      MPI_Recv(&in[i], 1, MPI_INT, rank, 5 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(in[i] == rank * 100 + i, "message %d: %d", i, in[i]);
    }
    CHECK(read_ull_pvar(s, unexp) == level0, "unexpected level %llu after the receives, was %llu",
          read_ull_pvar(s, unexp), level0);
    for (i = 0; i < size; ++i)
      if (i != rank) MPI_Isend(&tok, 1, MPI_INT, i, 99, MPI_COMM_WORLD, &trq[size + i]);
    MPI_Waitall(2 * size, trq, MPI_STATUSES_IGNORE);
    free(toks);
    free(trq);
  }
  { /* Around a ring: 512 bytes eagerly, 4096 above the 1k limit written before MPI_Init. */
    static char a[4096], b[4096];
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    memset(a, rank, sizeof a);
    MPI_Sendrecv(a, 512, MPI_CHAR, to, 1, b, 512, MPI_CHAR, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(read_ull_pvar(s, rndv) == 0, "512 bytes went by rendezvous (%llu)", read_ull_pvar(s, rndv));
    MPI_Sendrecv(a, 4096, MPI_CHAR, to, 2, b, 4096, MPI_CHAR, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(b[0] == (char)from && b[4095] == (char)from, "ring data");
    CHECK(read_ull_pvar(s, rndv) == 1, "rendezvous sends: %llu, want 1 (eager limit 1k)", read_ull_pvar(s, rndv));
  }
  for (i = 0; i < nsent; ++i) after_sent += read_ull_pvar(s, sent_h[i]);
  CHECK(after_sent >= before_sent + 10 + (unsigned long long)(size - 1),
        "messages sent went from %llu to %llu (10, and a token to each peer, sent)", before_sent, after_sent);
  { /* write, readreset, reset of a counter's handle */
    unsigned long long w = 100;
    CHECK(MPI_T_pvar_write(s, rndv, &w) == MPI_SUCCESS && read_ull_pvar(s, rndv) == 100, "written 100");
    CHECK(MPI_T_pvar_readreset(s, rndv, &w) == MPI_SUCCESS && w == 100, "readreset gave %llu", w);
    CHECK(read_ull_pvar(s, rndv) == 0, "after readreset");
    CHECK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "reset all");
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &w) == MPI_T_ERR_INVALID_HANDLE, "read of all handles");
  }
  if (cr) {
    MPI_T_pvar_handle cps = pvar_handle(s, "cr_checkpoints", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle cpt = pvar_handle(s, "cr_checkpoint_time", MPI_T_PVAR_CLASS_TIMER);
    MPI_T_pvar_handle drn = pvar_handle(s, "cr_drain_time", MPI_T_PVAR_CLASS_TIMER);
    double t = -1, d = -1;
    int taken = 0;
    CHECK(LZ_Checkpoint(&taken) == MPI_SUCCESS && taken, "LZ_Checkpoint took no snapshot (cr_app_every=1?)");
    /* The line completes when every message sent before it arrived (crcp
     * c3): the count moves then, at a later MPI call. */
    while (read_ull_pvar(s, cps) == 0) MPI_Barrier(MPI_COMM_WORLD);
    CHECK(read_ull_pvar(s, cps) == 1, "checkpoints: %llu, want 1", read_ull_pvar(s, cps));
    MPI_T_pvar_read(s, cpt, &t);
    MPI_T_pvar_read(s, drn, &d);
    CHECK(t > 0 && d >= 0 && d <= t, "checkpoint time %g s, drain %g s", t, d);
  }
  CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL, "session free");
  CHECK(MPI_T_pvar_get_index("p2p_rendezvous_sends", MPI_T_PVAR_CLASS_LEVEL, &idx) == MPI_T_ERR_INVALID_NAME,
        "a name of another class");
  MPI_Finalize();

  /* Indices survive MPI_T_finalize and a new MPI_T_init_thread. */
  idx = cvar_index("p2p_eager_limit");
  EARLY(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
  EARLY(MPI_T_cvar_get_num(&value) == MPI_T_ERR_NOT_INITIALIZED, "a call after MPI_T_finalize");
  EARLY(MPI_T_init_thread(MPI_THREAD_SINGLE, &value) == MPI_SUCCESS && value == MPI_THREAD_SINGLE, "re-init");
  EARLY(cvar_index("p2p_eager_limit") == idx, "index moved");
  MPI_T_finalize();
  if (rank == 0) printf("mpi_t: %d ranks%s ok\n", size, cr ? ", checkpoint counted," : "");
  return 0;
}
