/* cr_files: a rank that holds, across every checkpoint, the kinds of state
 * real programs keep outside MPI, each written so that the files an
 * uninterrupted run leaves are fully determined by the iterations run
 * (cr_files_test.sh compares them byte for byte with a reference run's):
 *
 *   log.<r>     fopen(..., "a"), one line per iteration (rank 0's line also
 *               carries the line it read from stdin, when stdin is a file)
 *   status.<r>  kept open, rewritten in place: ftruncate to 0 and pwrite
 *   data.<r>    kept open O_RDWR, a fixed-size record pwrite at each
 *               iteration's offset (CRIU checks this file's size)
 *   map.<r>     a 4 KiB file mapped MAP_SHARED, counters updated in place
 *   shm.<r>     the same in a POSIX shared-memory object of the rank's own
 *               (/dev/shm/lzcrf.<tag>.<r>), copied to shm.<r> at the end
 *   omp.<r>     OpenMP threads (outside MPI) pwrite a record each per iteration
 *   child.<r>   a child process (popen("cat >> child.<r>")) that the rank
 *               feeds one line per iteration; system() every 25 iterations
 *   timers      a POSIX timer ticking every 5 ms (each iteration waits for a
 *               tick: a lost timer fails the run) and a pending alarm(),
 *               whose remaining time is checked at the end
 *
 * With CR_FILES_SYSV or CR_FILES_UDP set it also attaches System V shared
 * memory or opens a UDP socket, which CRIU cannot save.
 * Usage: cr_files ITERS TAG    (files in the current directory)
 * Under cr=app (LZ_Register/LZ_Restore) it re-opens everything and goes on
 * from the restored iteration, as a program restarting itself does.
 * Prints "result <sum>" on rank 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REC 32
#define COUNTERS 64

static volatile sig_atomic_t ticks;
static void on_tick(int sig) { (void)sig; ++ticks; }
static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "cr_files: the alarm fired: a timer came back wrong\n";
  ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(3);
}

static void die(const char* what) {
  fprintf(stderr, "cr_files: %s: %s\n", what, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static long* map_file(int fd) {
  if (ftruncate(fd, COUNTERS * sizeof(long)) != 0) die("ftruncate of a mapped file");
  void* p = mmap(NULL, COUNTERS * sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) die("mmap");
  return p;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const char* tag = argc > 2 ? argv[2] : "x";

  int it = 0;
  long sum = 0;
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register("sum", &sum, 1, MPI_LONG);
  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) LZ_Restore();
  const int oflags = O_RDWR | O_CREAT | (restarting ? 0 : O_TRUNC);

  char name[128];
  snprintf(name, sizeof name, "log.%d", rank);
  if (!restarting) unlink(name);
  FILE* log = fopen(name, "a"); /* O_APPEND: CRIU does not check its size */
  if (!log) die(name);
  snprintf(name, sizeof name, "status.%d", rank);
  int status = open(name, oflags, 0644);
  snprintf(name, sizeof name, "data.%d", rank);
  int data = open(name, oflags, 0644);
  snprintf(name, sizeof name, "omp.%d", rank);
  int omp = open(name, oflags, 0644);
  snprintf(name, sizeof name, "map.%d", rank);
  int mapfd = open(name, oflags, 0644);
  if (status < 0 || data < 0 || omp < 0 || mapfd < 0) die("open");
  long* map = map_file(mapfd);
  close(mapfd);
  char shm_name[128];
  snprintf(shm_name, sizeof shm_name, "/lzcrf.%s.%d", tag, rank);
  int shmfd = shm_open(shm_name, oflags, 0600);
  if (shmfd < 0) die(shm_name);
  long* shm = map_file(shmfd);
  close(shmfd);
  snprintf(name, sizeof name, "child.%d", rank);
  if (!restarting) unlink(name);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "cat >> %s", name);
  FILE* child = popen(cmd, "w");
  if (!child) die("popen");

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR2, &sa, NULL);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  timer_t timer;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGUSR2;
  if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0) die("timer_create");
  struct itimerspec every = {{0, 5000000}, {0, 5000000}};
  if (timer_settime(timer, 0, &every, NULL) != 0) die("timer_settime");
  alarm(3000);
  /* What CRIU cannot save (cr_files_test.sh policies): the checkpoints are
   * refused, naming them, and the job goes on. */
  if (getenv("CR_FILES_SYSV") != NULL) {
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (id < 0 || shmat(id, NULL, 0) == (void*)-1) die("shmget/shmat");
    shmctl(id, IPC_RMID, NULL);
  }
  if (getenv("CR_FILES_UDP") != NULL && socket(AF_INET, SOCK_DGRAM, 0) < 0) die("socket");

  char in[64];
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    long v = it + rank, r;
    MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += r;
    const char* input = "";
    if (rank == 0) {
      input = fgets(in, sizeof in, stdin) ? in : "<eof>\n";
    }
    fprintf(log, "rank %d iteration %d sum %ld input %s%s", rank, it, sum, input, rank == 0 ? "" : "\n");
    fflush(log);
    char rec[REC + 1];
    snprintf(rec, sizeof rec, "%06d %024ld\n", it, sum);
    if (pwrite(data, rec, REC, (off_t)it * REC) != REC) die("pwrite data");
    int n = snprintf(rec, sizeof rec, "iteration %d sum %ld\n", it, sum);
    if (ftruncate(status, 0) != 0 || pwrite(status, rec, (size_t)n, 0) != n) die("status");
    map[it % COUNTERS] += it + 1;
    shm[it % COUNTERS] += 2 * it + 1;
#pragma omp parallel num_threads(2)
    {
      char t[REC + 1];
      const int me = omp_get_thread_num();
      snprintf(t, sizeof t, "%06d t%d %021ld\n", it, me, sum * (me + 1));
      if (pwrite(omp, t, REC, (off_t)(2 * it + me) * REC) != REC) die("pwrite omp");
    }
    fprintf(child, "rank %d iteration %d\n", rank, it);
    fflush(child);
    if (it % 25 == 0 && system("true") != 0) die("system");
    /* A tick of the timer since the last iteration (lost timer: fail). */
    const sig_atomic_t seen = ticks;
    for (int w = 0; ticks == seen; ++w) {
      if (w > 5000) {
        fprintf(stderr, "cr_files: rank %d: no timer tick for 5 s at iteration %d\n", rank, it);
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
      usleep(1000);
    }
    usleep(8000);
  }
  const unsigned left = alarm(0);
  if (left == 0 || left > 3000) {
    fprintf(stderr, "cr_files: rank %d: the pending alarm came back with %u s left\n", rank, left);
    MPI_Abort(MPI_COMM_WORLD, 5);
  }
  timer_delete(timer);
  if (pclose(child) != 0) die("pclose");
  snprintf(name, sizeof name, "shm.%d", rank);
  int out = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || write(out, shm, COUNTERS * sizeof(long)) != (ssize_t)(COUNTERS * sizeof(long))) die(name);
  close(out);
  shm_unlink(shm_name);
  munmap(map, COUNTERS * sizeof(long));
  munmap(shm, COUNTERS * sizeof(long));
  fclose(log);
  close(status);
  close(data);
  close(omp);
  if (rank == 0) printf("result %ld\n", sum);
  MPI_Finalize();
  return 0;
}
