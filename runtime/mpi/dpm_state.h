// What the dynamic-process calls (mpi_dpm.cpp, mpi_spawn.cpp) keep between
// calls: the ports this process opened, the intercommunicator to the job
// that spawned it, and their shared helpers. Used under the MPI entry lock.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "mpi.h"
#include "p2p/dpm.h"
#include "p2p/dpm_port.h"

namespace lz::rt {

// Ports of MPI_Open_port, by name, until MPI_Close_port.
std::map<std::string, std::unique_ptr<DpmPort>>& dpm_ports();
// MPI_Comm_get_parent's answer: the spawning job, or MPI_COMM_NULL.
MPI_Comm& dpm_parent();
// MPI_Comm_free / MPI_Comm_disconnect of `c`: the parent is gone for good.
void dpm_forget(MPI_Comm c);
// When a wait for the other side ends (dpm_timeout from now; 0 none).
double dpm_call_deadline();
// The engine's progress, for the waits of a root on the other job.
DpmIdle dpm_idle();
// The value of `key` in `info` (MPI_INFO_NULL: none).
std::optional<std::string> dpm_info(MPI_Info info, const std::string& key);
// The checks of every call collective over an intracommunicator `comm`
// with a `root` that makes `*newcomm` (set to MPI_COMM_NULL first):
// MPI_SUCCESS or the error raised.
int dpm_check_call(const char* fn, MPI_Comm comm, int root, MPI_Comm* newcomm);
// Joins the groups (p2p/dpm.h) and hands out the intercommunicator, or
// reports the error on `comm` as `fn` (class `root_class` for an error the
// root found itself, e.g. MPI_ERR_PORT).
int dpm_finish(const char* fn, MPI_Comm comm, int root, bool accepting, DpmLink* link, const Status& root_error,
               int root_class, MPI_Comm* newcomm);

}  // namespace lz::rt

// MPI_Init's last step in a spawned process: connects MPI_COMM_WORLD to the
// job that spawned it (LZ_DPM_PARENT names its port); MPI_SUCCESS at once
// in a process nobody spawned.
int lz_dpm_connect_parent();
