/* The BLCR API round trip in one process (driven by libcr_test.cpp).
 *
 * Computes a deterministic checksum over `iters` iterations with its state in
 * memory. With --image DIR, at iteration `at` it enters a critical section,
 * asks for a checkpoint of itself from another thread (cr_request_checkpoint,
 * cr_fd = DIR), waits until cr_status() says PENDING, works a little more
 * inside the section, then leaves it: the checkpoint happens there. A thread
 * callback and a signal callback log to --log what cr_checkpoint() returned.
 * The process that goes on prints its result and then waits to be killed
 * (--wait-after); a restored one prints its result and exits.
 *
 * Log lines (opened, appended and closed per line: no descriptor to the log
 * is part of the image, and the signal callback stays async-signal-safe).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lazarus/libcr.h"

static const char* g_log;
static volatile int g_restarted;
static const char* g_image;
static cr_client_id_t g_id;

static void log_line(const char* text, long value) {
  char buf[160];
  size_t n = 0;
  for (const char* p = text; *p && n < 100; ++p) buf[n++] = *p;
  if (value != LONG_MIN) {
    buf[n++] = ' ';
    char digits[24];
    int k = 0;
    unsigned long v = value < 0 ? (unsigned long)(-value) : (unsigned long)value;
    do {
      digits[k++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    if (value < 0) buf[n++] = '-';
    while (k) buf[n++] = digits[--k];
  }
  buf[n++] = '\n';
  int fd = open(g_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ssize_t w = write(fd, buf, n);
    (void)w;
    close(fd);
  }
}

static int thread_cb(void* arg) {
  (void)arg;
  const struct cr_checkpoint_info* info = cr_get_checkpoint_info();
  log_line(info && info->dest ? "thread-cb before, dest ok" : "thread-cb before, no info", LONG_MIN);
  int rc = cr_checkpoint(CR_CHECKPOINT_READY);
  log_line("thread-cb rc", rc);
  if (rc > 0) {
    g_restarted = 1;
    log_line(cr_get_restart_info() ? "thread-cb restart info ok" : "thread-cb no restart info", LONG_MIN);
  }
  return 0;
}

static int signal_cb(void* arg) {
  (void)arg;
  log_line("signal-cb before", LONG_MIN);
  int rc = cr_checkpoint(CR_CHECKPOINT_READY);
  log_line("signal-cb rc", rc);
  return 0;
}

static void* requester(void* arg) {
  (void)arg;
  mkdir(g_image, 0700);
  int fd = open(g_image, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cr_checkpoint_args_t a;
  cr_initialize_checkpoint_args_t(&a);
  a.cr_fd = fd;
  cr_checkpoint_handle_t h;
  if (cr_request_checkpoint(&a, &h) != 0) {
    log_line("requester: request failed", errno);
    fprintf(stderr, "request failed: %s\n", cr_lz_last_error());
    return NULL;
  }
  log_line("requester: requested", LONG_MIN);
  int rc = cr_poll_checkpoint(&h, NULL);
  if (rc > 0)
    log_line("requester: done", LONG_MIN);
  else if (rc == CR_POLL_CHKPT_ERR_POST && errno == CR_ERESTARTED)
    log_line("requester: restarted", LONG_MIN);
  else {
    log_line("requester: failed", errno);
    fprintf(stderr, "checkpoint failed: %s\n", cr_lz_last_error());
  }
  close(fd);
  return NULL;
}

int main(int argc, char** argv) {
  long iters = 2000, at = 700;
  int wait_after = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--log") && i + 1 < argc)
      g_log = argv[++i];
    else if (!strcmp(argv[i], "--image") && i + 1 < argc)
      g_image = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atol(argv[++i]);
    else if (!strcmp(argv[i], "--at") && i + 1 < argc)
      at = atol(argv[++i]);
    else if (!strcmp(argv[i], "--wait-after"))
      wait_after = 1;
  }
  if (g_log == NULL) g_log = "/dev/null";

  g_id = cr_init();
  if (g_id <= 0) {
    fprintf(stderr, "cr_init failed: %s\n", cr_lz_last_error());
    return 3;
  }
  if (cr_register_callback(thread_cb, NULL, CR_THREAD_CONTEXT) < 0 ||
      cr_register_callback(signal_cb, NULL, CR_SIGNAL_CONTEXT) < 0) {
    fprintf(stderr, "cr_register_callback failed: %s\n", cr_strerror(errno));
    return 3;
  }

  enum { kWords = 1 << 15 };
  uint64_t* state = malloc(kWords * sizeof *state);
  for (long w = 0; w < kWords; ++w) state[w] = (uint64_t)w * 0x9e3779b97f4a7c15ull;
  uint64_t sum = 1469598103934665603ull;
  pthread_t req;
  for (long i = 0; i < iters; ++i) {
    for (long w = 0; w < kWords; w += 7) {
      state[w] ^= state[(w * 13 + i) % kWords] + (uint64_t)i;
      state[w] *= 1099511628211ull;
    }
    sum = (sum ^ state[i % kWords]) * 1099511628211ull;
    if (g_image && i == at) {
      cr_enter_cs(g_id);
      log_line("cs entered at", i);
      pthread_create(&req, NULL, requester, NULL);
      while (cr_status() != CR_STATE_PENDING) sched_yield();
      log_line("pending seen inside cs", LONG_MIN);
      for (int k = 0; k < 3; ++k) log_line("still inside cs, checkpoint deferred", k);
      log_line("leaving cs", LONG_MIN);
      cr_leave_cs(g_id);
      log_line("cs left, restarted", g_restarted);
      pthread_join(req, NULL);
    }
  }
  printf("result %016llx\n", (unsigned long long)sum);
  printf("restarted %d\n", g_restarted);
  fflush(stdout);
  log_line("finished, restarted", g_restarted);
  if (wait_after && !g_restarted)
    for (;;) pause();
  return 0;
}
