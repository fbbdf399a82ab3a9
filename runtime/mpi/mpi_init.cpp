// MPI binding: environment (init, finalize, abort, queries, timers).
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cr/app_service.h"
#include "cr/cr_service.h"
#include "cr/runtime_params.h"
#include "io/io_queue.h"
#include "lazarus/log.h"
#include "mpi.h"
#include "mpi/attributes.h"
#include "mpi/dpm_state.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/io/file_record.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

using lz::rt::MpiState;
using lz::rt::g_mpi_state;

namespace {
int g_thread_level = MPI_THREAD_SINGLE;
pthread_t g_main_thread;  // the thread that called MPI_Init_thread
std::unique_ptr<lz::rt::CrService> g_cr_service;

bool in_state(MpiState s) { return g_mpi_state.load() == static_cast<int>(s); }
}  // namespace

extern "C" {

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)argc, (void)argv;
  int expected = static_cast<int>(MpiState::kNotInitialized);
  if (!g_mpi_state.compare_exchange_strong(expected, static_cast<int>(MpiState::kInitializing))) {
    std::fprintf(stderr, "MPI_Init: MPI is already %s\n",
                 expected == static_cast<int>(MpiState::kFinalized) ? "finalized" : "initialized");
    return MPI_ERR_OTHER;
  }
  auto rt = lz::rt::Runtime::create(&lz::rt::register_runtime_params);
  if (!rt.ok()) {
    std::fprintf(stderr, "MPI_Init: %s\n", rt.status().message().c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  lz::rt::set_runtime(std::move(rt).value());
  g_thread_level = std::clamp(required, static_cast<int>(MPI_THREAD_SINGLE), static_cast<int>(MPI_THREAD_MULTIPLE));
  g_main_thread = pthread_self();
  lz::rt::Runtime& r = lz::rt::runtime();
  // MPI_THREAD_MULTIPLE: every thread's calls go through the thread gate
  // (mpi/thread_gate.h); the engine's waits let go of it while they sleep.
  const bool multiple = g_thread_level == MPI_THREAD_MULTIPLE;
  if (multiple) r.engine().set_thread_gate(&lz::rt::ThreadGate::instance());
  // Application-level checkpoints (lazarus/checkpoint.h): valid under every cr back end.
  lz::rt::set_app_service(std::make_unique<lz::rt::AppService>(r));
  lz::rt::app_service()->set_state_saver(lz::rt::io::save_open_files);
  if (lz::Status s = lz::rt::app_service()->start(); !s.ok()) {
    std::fprintf(stderr, "MPI_Init: application-level checkpoints (cr=%s): %s\n", r.cr_name().c_str(),
                 s.message().c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  if (r.cr_enabled()) {
    // Checkpointing on: the CR thread and the entry lock (cr/entry_lock.h). The
    // application may call MPI from any one thread at a time while the CR
    // thread runs: at least MPI_THREAD_SERIALIZED.
    if (!lz::rt::cr_lock_init())
      lz::log::debug("membarrier(PRIVATE_EXPEDITED) unavailable: MPI entries fence instead");
    if (g_thread_level < MPI_THREAD_SERIALIZED) g_thread_level = MPI_THREAD_SERIALIZED;
    lz::log::debug("checkpoint/restart on: cr=%s, crcp=%s", r.cr_name().c_str(), r.crcp_name().c_str());
    g_cr_service = std::make_unique<lz::rt::CrService>(r);
    // A cr=app migration's round runs in LZ_Checkpoint, on this thread.
    lz::rt::app_service()->set_cr_runner([svc = g_cr_service.get()](uint64_t seq, uint32_t flags,
                                                                      const std::string& dir) {
      svc->run_at_safe_point(seq, flags, dir);
    });
    // Counted inside MPI while the service starts: it may take requests at once.
    lz::rt::g_mpi_depth.store(1, std::memory_order_relaxed);
    g_mpi_state.store(static_cast<int>(multiple ? MpiState::kRunningCrMt : MpiState::kRunningCr));
    lz::Status s = g_cr_service->start();
    lz::rt::g_mpi_depth.store(0, std::memory_order_release);
    if (!s.ok()) {
      std::fprintf(stderr, "MPI_Init: checkpoint service (cr=%s): %s\n", r.cr_name().c_str(), s.message().c_str());
      std::fflush(stderr);
      std::_Exit(1);
    }
  } else {
    g_mpi_state.store(static_cast<int>(multiple ? MpiState::kRunningMt : MpiState::kRunning));
  }
  // A spawned process's MPI_Init ends connected to its parent job.
  if (int e = lz_dpm_connect_parent(); e != MPI_SUCCESS) {
    std::fprintf(stderr, "MPI_Init: cannot connect to the job that spawned this one (error class %d)\n", e);
    std::fflush(stderr);
    std::_Exit(1);
  }
  if (provided) *provided = g_thread_level;
  return MPI_SUCCESS;
}

int MPI_Init(int* argc, char*** argv) {
  int provided;
  return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Finalize(void) {
  LZ_MPI_ENTRY("MPI_Finalize");
  // MPI-3.1 section 8.7.1: MPI_COMM_SELF's attributes are deleted first, as
  // if it were freed (the hook libraries use to run at finalize).
  if (int e = lz::rt::attributes_delete_all("MPI_Finalize", MPI_COMM_SELF)) return e;
  // CR_FINALIZING first, under the entry lock, then the CR thread stops: no
  // checkpoint can start once the finalize barrier may block this thread.
  if (lz::rt::AppService* app = lz::rt::app_service()) app->finish_before_finalize();
  if (g_cr_service) g_cr_service->stop_for_finalize();
  lz::io::IoQueue::instance().stop();  // no I/O thread wakes an engine that is gone
  g_mpi_state.store(static_cast<int>(MpiState::kFinalizing));
  lz::Status s = lz::rt::runtime().finalize();
  if (!s.ok()) std::fprintf(stderr, "MPI_Finalize: rank %d: %s\n", lz::rt::runtime().rank(), s.message().c_str());
  g_cr_service.reset();
  lz::rt::set_app_service(nullptr);
  auto rt = lz::rt::take_runtime();
  rt.reset();
  g_mpi_state.store(static_cast<int>(MpiState::kFinalized));
  return s.ok() ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int MPI_Initialized(int* flag) {
  *flag = in_state(MpiState::kNotInitialized) || in_state(MpiState::kInitializing) ? 0 : 1;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  *flag = in_state(MpiState::kFinalized) ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  lz::rt::Runtime* rt = lz::rt::runtime_if_any();
  int code = errorcode & 0xff;
  if (code == 0 && errorcode != 0) code = 1;
  if (rt != nullptr) {
    std::string reason = "MPI_Abort called by rank " + std::to_string(rt->rank()) + " with error code " +
                         std::to_string(errorcode);
    std::fprintf(stderr, "%s\n", reason.c_str());
    std::fflush(stderr);
    rt->bootstrap().abort(code, reason).ignore();
  }
  std::fflush(stdout);
  std::_Exit(code);
}

int MPI_Query_thread(int* provided) {
  LZ_MPI_ENTRY("MPI_Query_thread");
  *provided = g_thread_level;
  return MPI_SUCCESS;
}

int MPI_Is_thread_main(int* flag) {
  LZ_MPI_ENTRY("MPI_Is_thread_main");
  *flag = pthread_equal(pthread_self(), g_main_thread) ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

// Like MPI_Get_version, callable before MPI_Init and after MPI_Finalize.
int MPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  const int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Lazarus %s (MPI %d.%d C binding)", LZ_VERSION,
                              MPI_VERSION, MPI_SUBVERSION);
  *resultlen = std::min(n, MPI_MAX_LIBRARY_VERSION_STRING - 1);
  return MPI_SUCCESS;
}

// Profiling control: Lazarus has no profiling library to steer, so every level
// is accepted and ignored (MPI-3.1 section 14.2.4).
int MPI_Pcontrol(const int level, ...) {
  LZ_MPI_ENTRY("MPI_Pcontrol");
  (void)level;
  return MPI_SUCCESS;
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  char buf[MPI_MAX_PROCESSOR_NAME];
  if (gethostname(buf, sizeof buf) != 0) std::strcpy(buf, "unknown");
  buf[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  std::strcpy(name, buf);
  *resultlen = static_cast<int>(std::strlen(buf));
  return MPI_SUCCESS;
}

double MPI_Wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double MPI_Wtick(void) {
  struct timespec ts;
  if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return 1e-9;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // extern "C"
