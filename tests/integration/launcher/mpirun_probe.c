/* mpirun_probe: what mpirun gave each rank, one line per rank on stdout
 * (mpirun_compat_test.sh checks it):
 *   probe rank=R size=S appnum=A universe=U host=H local=L/N cpus=C cwd=D
 *         prog=ARGV0 args=A1|A2 env=PROBE_A=x;PROBE_B=y stdin=LINE sum=N
 * host: the one the launcher placed it on (LZ_HOSTNAME); cpus: the CPUs the rank may run on (sched_getaffinity), as
 * "0-1,4"; env: every variable whose name starts with PROBE_, and those PROBE_SHOW names (comma-separated), sorted;
 * stdin: the first line read from stdin
 * ("<eof>" at once). Lines of all ranks come out in rank order. With
 * PROBE_ITERS=N the ranks first run N rounds of an allreduce 10 ms apart
 * (long enough to be checkpointed, restarted, migrated) and print
 * "sum=<total>" on their line. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char** environ;

static int cmp(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, flag, *attr;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int appnum = -1, universe = -1;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
  if (flag) appnum = *attr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &attr, &flag);
  if (flag) universe = *attr;
  char host[256] = "", cwd[1024] = "", cpus[512] = "", args[512] = "", env[1024] = "", in[256] = "<eof>";
  /* The host the launcher placed the rank on (namespace test hosts share
   * one host name), else this machine's. */
  if (getenv("LZ_HOSTNAME"))
    snprintf(host, sizeof host, "%s", getenv("LZ_HOSTNAME"));
  else
    gethostname(host, sizeof host);
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
    size_t n = strlen(cpus);
    snprintf(cpus + n, sizeof cpus - n, "%s%d", n ? "," : "", c);
    if (e > c) {
      n = strlen(cpus);
      snprintf(cpus + n, sizeof cpus - n, "-%d", e);
    }
    c = e;
  }
  for (int i = 1; i < argc; ++i) {
    size_t n = strlen(args);
    snprintf(args + n, sizeof args - n, "%s%s", i > 1 ? "|" : "", argv[i]);
  }
  const char* vars[64];
  int nv = 0;
  const char* show = getenv("PROBE_SHOW");
  for (char** e = environ; *e && nv < 64; ++e) {
    const size_t len = strcspn(*e, "=");
    int shown = strncmp(*e, "PROBE_", 6) == 0;
    for (const char* s = show; s && *s && !shown; s += strcspn(s, ",") + (s[strcspn(s, ",")] ? 1 : 0))
      shown = strcspn(s, ",") == len && strncmp(s, *e, len) == 0;
    if (shown) vars[nv++] = *e;
  }
  qsort(vars, (size_t)nv, sizeof vars[0], cmp);
  for (int i = 0; i < nv; ++i) {
    size_t n = strlen(env);
    snprintf(env + n, sizeof env - n, "%s%s", i ? ";" : "", vars[i]);
  }
  if (fgets(in, sizeof in, stdin)) in[strcspn(in, "\n")] = '\0';
  long sum = 0;
  const int iters = getenv("PROBE_ITERS") ? atoi(getenv("PROBE_ITERS")) : 0;
  for (int i = 0; i < iters; ++i) {
    long mine = (long)(appnum + 1) * (rank + 1) + i, all;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += all;
    usleep(10000);
  }
  char line[4096];
  snprintf(line, sizeof line,
           "probe rank=%d size=%d appnum=%d universe=%d host=%s local=%s/%s cpus=%s cwd=%s prog=%s args=%s env=%s "
           "stdin=%s sum=%ld\n",
           rank, size, appnum, universe, host, getenv("LZ_LOCAL_RANK") ? getenv("LZ_LOCAL_RANK") : "?",
           getenv("LZ_LOCAL_SIZE") ? getenv("LZ_LOCAL_SIZE") : "?", cpus, cwd, argv[0], args, env, in, sum);
  /* In rank order: each rank waits for its predecessor's token. */
  int token = 0;
  if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fputs(line, stdout);
  fflush(stdout);
  if (rank + 1 < size) MPI_Send(&token, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
