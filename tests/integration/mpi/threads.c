/* MPI_THREAD_MULTIPLE: several threads of every rank call MPI at once.
 *   1. each thread runs a ring of eager and rendezvous messages and
 *      collectives on a communicator of its own (dup'ed beforehand);
 *   2. every thread exchanges with the neighbours on MPI_COMM_WORLD at once,
 *      told apart by tag, ANY_SOURCE receives included;
 *   3. a thread blocked in MPI_Recv must not keep the others out: its message
 *      comes from another thread of the same rank, and across ranks from a
 *      thread that first waits for a message sent by a third thread of the
 *      blocked rank (a deadlock if a blocked call kept MPI to itself);
 *   4. one thread spins on MPI_Test while another sleeps in MPI_Wait.
 * Every byte and sum is checked; a failure aborts the job. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "lz_test.h"

#define NT 4
#define BIG (256 * 1024)

static int rank, size;
static MPI_Comm comms[NT];

static void fill(unsigned char* b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) b[i] = lz_pattern(src, seq, i);
}
static void verify(const unsigned char* b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i)
    CHECK(b[i] == lz_pattern(src, seq, i), "byte %ld of message (src %d, seq %d)", i, src, seq);
}

/* 1: a ring and collectives on the thread's own communicator. */
static void* own_comm(void* arg) {
  int t = (int)(long)arg;
  MPI_Comm c = comms[t];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char* out = malloc(BIG);
  unsigned char* in = malloc(BIG);
  for (int it = 0; it < 20; ++it) {
    long n = (it % 3 == 2) ? BIG : 64 + it * 8 + t;
    int seq = t * 1000 + it;
    fill(out, n, rank, seq);
    MPI_Status st;
    MPI_Sendrecv(out, (int)n, MPI_BYTE, right, it, in, (int)n, MPI_BYTE, left, it, c, &st);
    int got;
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == n && st.MPI_SOURCE == left, "thread %d: %d bytes from %d", t, got, st.MPI_SOURCE);
    verify(in, n, left, seq);
    long v = rank + t * it, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c);
    CHECK(sum == (long)size * (size - 1) / 2 + (long)size * t * it, "thread %d allreduce %ld", t, sum);
    int root = it % size, b = rank == root ? 7 * t + it : -1;
    MPI_Bcast(&b, 1, MPI_INT, root, c);
    CHECK(b == 7 * t + it, "thread %d bcast %d", t, b);
    MPI_Barrier(c);
  }
  free(out);
  free(in);
  return NULL;
}

/* 2: all threads on MPI_COMM_WORLD, tag = thread; odd threads receive from
 * MPI_ANY_SOURCE (the tag alone tells the messages apart). */
static void* shared_comm(void* arg) {
  int t = (int)(long)arg;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int it = 0; it < 50; ++it) {
    int out[4] = {rank, t, it, rank * 100 + t}, in[4];
    MPI_Request r;
    MPI_Irecv(in, 4, MPI_INT, (t % 2) ? MPI_ANY_SOURCE : left, 100 + t, MPI_COMM_WORLD, &r);
    MPI_Send(out, 4, MPI_INT, right, 100 + t, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Wait(&r, &st);
    CHECK(in[0] == left && in[1] == t && in[2] == it && in[3] == left * 100 + t && st.MPI_SOURCE == left,
          "thread %d iteration %d got (%d %d %d %d) from %d", t, it, in[0], in[1], in[2], in[3], st.MPI_SOURCE);
  }
  return NULL;
}

/* 3a: blocked in a receive that another thread of this rank satisfies. */
static void* self_recv(void* arg) {
  (void)arg;
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, rank, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(v == 4242 + rank, "self message %d", v);
  return NULL;
}
static void* self_send(void* arg) {
  (void)arg;
  usleep(50000); /* let the receiver block first */
  int v = 4242 + rank;
  MPI_Send(&v, 1, MPI_INT, rank, 300, MPI_COMM_WORLD);
  return NULL;
}

/* 3b: rank r's thread A waits for r+1's reply, which r+1 sends only after
 * thread C of rank r has sent it a message. */
static void* chain_a(void* arg) {
  (void)arg;
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, (rank + 1) % size, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(v == ((rank + 1) % size) * 3 + 1, "chain reply %d", v);
  return NULL;
}
static void* chain_c(void* arg) {
  (void)arg;
  usleep(50000);
  int v = rank * 3;
  MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 302, MPI_COMM_WORLD);
  return NULL;
}
static void* chain_b(void* arg) {
  (void)arg;
  int left = (rank + size - 1) % size, v = -1;
  MPI_Recv(&v, 1, MPI_INT, left, 302, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(v == left * 3, "chain request %d", v);
  v = rank * 3 + 1;
  MPI_Send(&v, 1, MPI_INT, left, 301, MPI_COMM_WORLD);
  return NULL;
}

/* 4: one thread tests in a loop, the other waits; both are answered. */
static void* tester(void* arg) {
  (void)arg;
  int v = -1, flag = 0;
  MPI_Request r;
  MPI_Irecv(&v, 1, MPI_INT, (rank + size - 1) % size, 400, MPI_COMM_WORLD, &r);
  while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  CHECK(v == (rank + size - 1) % size, "tested %d", v);
  return NULL;
}
static void* waiter(void* arg) {
  (void)arg;
  int v = -1, out = rank;
  MPI_Request r[2];
  MPI_Irecv(&v, 1, MPI_INT, (rank + 1) % size, 401, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(&out, 1, MPI_INT, (rank + size - 1) % size, 401, MPI_COMM_WORLD, &r[1]);
  usleep(20000);
  int out2 = rank;
  MPI_Send(&out2, 1, MPI_INT, (rank + 1) % size, 400, MPI_COMM_WORLD);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  CHECK(v == (rank + 1) % size, "waited %d", v);
  return NULL;
}

static void run(void* (*fns[])(void*), int n) {
  pthread_t th[NT];
  for (int i = 0; i < n; ++i) CHECK(pthread_create(&th[i], NULL, fns[i], (void*)(long)i) == 0, "pthread_create");
  for (int i = 0; i < n; ++i) pthread_join(th[i], NULL);
}

static void* check_not_main(void* arg) {
  int flag = 1;
  MPI_Is_thread_main(&flag);
  *(int*)arg = flag;
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  int level = -1, main_flag = 0, other_flag = 1;
  MPI_Query_thread(&level);
  CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Query_thread %d", level);
  MPI_Is_thread_main(&main_flag);
  pthread_t th;
  pthread_create(&th, NULL, check_not_main, &other_flag);
  pthread_join(th, NULL);
  CHECK(main_flag == 1 && other_flag == 0, "MPI_Is_thread_main: main %d, other %d", main_flag, other_flag);

  for (int t = 0; t < NT; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  void* (*own[NT])(void*) = {own_comm, own_comm, own_comm, own_comm};
  run(own, NT);
  void* (*shared[NT])(void*) = {shared_comm, shared_comm, shared_comm, shared_comm};
  run(shared, NT);
  void* (*self[2])(void*) = {self_recv, self_send};
  run(self, 2);
  void* (*chain[3])(void*) = {chain_a, chain_b, chain_c};
  run(chain, 3);
  void* (*test_wait[2])(void*) = {tester, waiter};
  run(test_wait, 2);
  for (int t = 0; t < NT; ++t) MPI_Comm_free(&comms[t]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("threads: all checks passed on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
