// MPI binding: MPI_Comm_spawn and MPI_Comm_spawn_multiple.
//
// The root opens a port and asks its launcher to start the new job
// (Bootstrap::spawn: the launcher runs `lazarus run` for it, on the hosts
// the info keys name or on the job's own), passing the port's name in
// LZ_DPM_PARENT and this process's parameters (LZ_MCA_*) to every new
// process. The new job's MPI_Init connects its MPI_COMM_WORLD to that port
// (lz_dpm_connect_parent), and the spawning group accepts it: the
// intercommunicator of p2p/dpm.h. Info keys: host, hostfile, wdir, path;
// others are ignored, as MPI allows.
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "cr/app_service.h"
#include "mpi.h"
#include "mpi/dpm_state.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "p2p/comm.h"
#include "p2p/runtime.h"

extern char** environ;

using lz::rt::mpi_error;

namespace {

// One app of the request from the root's arguments; "" or the error.
std::string make_app(const char* command, char** argv, int maxprocs, MPI_Info info, lz::oob::SpawnApp* app) {
  if (command == nullptr || *command == '\0') return "command is NULL or empty";
  if (maxprocs < 1) return "maxprocs " + std::to_string(maxprocs) + " is not a positive number of processes";
  app->command = command;
  app->maxprocs = maxprocs;
  for (char** a = argv; a != nullptr && *a != nullptr; ++a) app->argv.emplace_back(*a);
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid())) return "invalid info object";
  app->host = lz::rt::dpm_info(info, "host").value_or("");
  app->hostfile = lz::rt::dpm_info(info, "hostfile").value_or("");
  app->wdir = lz::rt::dpm_info(info, "wdir").value_or("");
  app->path = lz::rt::dpm_info(info, "path").value_or("");
  return "";
}

// Spawns `apps` from `comm`'s root and joins the new job; every member returns.
int spawn(const char* fn, std::vector<lz::oob::SpawnApp> apps, const std::string& bad_args, int root, MPI_Comm comm,
          MPI_Comm* intercomm, int* errcodes) {
  lz::rt::DpmCallGuard busy;
  lz::rt::DpmLink link;
  lz::Status err;
  int root_class = MPI_ERR_SPAWN;
  if (comm->rank() == root) {
    if (!bad_args.empty()) {
      err = lz::InvalidArgument(bad_args);
      root_class = MPI_ERR_ARG;
    } else {
      auto port = lz::rt::DpmPort::open();
      if (!port.ok()) {
        err = port.status();
      } else {
        lz::oob::SpawnRequestMsg req;
        req.apps = std::move(apps);
        req.env.push_back("LZ_DPM_PARENT=" + (*port)->name());
        for (char** e = environ; e != nullptr && *e != nullptr; ++e)
          if (std::strncmp(*e, "LZ_MCA_", 7) == 0) req.env.emplace_back(*e);
        // Under cr=app the new job numbers its lines as this one (crcp.h start_epoch).
        if (const lz::rt::AppService* app = lz::rt::app_service())
          if (auto epoch = app->spawn_epoch()) req.env.push_back("LZ_CR_APP_EPOCH=" + std::to_string(*epoch));
        err = lz::rt::runtime().bootstrap().spawn(req);
        if (err.ok()) {
          auto l = (*port)->accept(lz::rt::dpm_call_deadline(), lz::rt::dpm_idle());
          if (l.ok())
            link = std::move(*l);
          else
            err = l.status().with_context("waiting for the spawned processes to connect");
        }
      }
    }
  }
  const int e = lz::rt::dpm_finish(fn, comm, root, true, &link, err, root_class, intercomm);
  if (errcodes != MPI_ERRCODES_IGNORE && e == MPI_SUCCESS)
    for (int i = 0; i < (*intercomm)->remote_size(); ++i) errcodes[i] = MPI_SUCCESS;
  return e;
}

}  // namespace

extern "C" {

int MPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm* intercomm, int array_of_errcodes[]) {
  static constexpr const char* kFn = "MPI_Comm_spawn";
  LZ_MPI_ENTRY(kFn);
  if (int e = lz::rt::dpm_check_call(kFn, comm, root, intercomm)) return e;
  std::vector<lz::oob::SpawnApp> apps(1);
  std::string bad;
  if (comm->rank() == root) bad = make_app(command, argv, maxprocs, info, &apps[0]);
  return spawn(kFn, std::move(apps), bad, root, comm, intercomm, array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[], const int array_of_maxprocs[],
                            const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm* intercomm,
                            int array_of_errcodes[]) {
  static constexpr const char* kFn = "MPI_Comm_spawn_multiple";
  LZ_MPI_ENTRY(kFn);
  if (int e = lz::rt::dpm_check_call(kFn, comm, root, intercomm)) return e;
  std::vector<lz::oob::SpawnApp> apps;
  std::string bad;
  if (comm->rank() == root) {
    if (count < 1)
      bad = "count " + std::to_string(count) + " is not a positive number of commands";
    else if (array_of_commands == nullptr || array_of_maxprocs == nullptr)
      bad = "array_of_commands or array_of_maxprocs is NULL";
    apps.resize(bad.empty() ? static_cast<size_t>(count) : 0);
    for (int i = 0; bad.empty() && i < count; ++i) {
      bad = make_app(array_of_commands[i], array_of_argv != MPI_ARGVS_NULL ? array_of_argv[i] : MPI_ARGV_NULL,
                     array_of_maxprocs[i], array_of_info != nullptr ? array_of_info[i] : MPI_INFO_NULL,
                     &apps[static_cast<size_t>(i)]);
      if (!bad.empty()) bad = "command " + std::to_string(i) + ": " + bad;
    }
  }
  return spawn(kFn, std::move(apps), bad, root, comm, intercomm, array_of_errcodes);
}

}  // extern "C"
