// MPI binding: ports and connections between jobs (MPI-3.1 chapter 10):
// MPI_Open_port, _Close_port, MPI_Comm_accept, _connect, _disconnect,
// _join, _get_parent. The protocol is p2p/dpm.h; spawning is mpi_spawn.cpp,
// the name service mpi_name_service.cpp.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/dpm_state.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "p2p/comm.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

using lz::rt::mpi_error;

namespace lz::rt {

std::map<std::string, std::unique_ptr<DpmPort>>& dpm_ports() {
  static std::map<std::string, std::unique_ptr<DpmPort>> ports;
  return ports;
}

MPI_Comm& dpm_parent() {
  static MPI_Comm parent = MPI_COMM_NULL;
  return parent;
}

void dpm_forget(MPI_Comm c) {
  if (c != MPI_COMM_NULL && c == dpm_parent()) dpm_parent() = MPI_COMM_NULL;
}

double dpm_call_deadline() { return dpm_deadline(runtime().registry().params().get_double("dpm_timeout")); }

DpmIdle dpm_idle() {
  return [] { runtime().engine().progress(); };
}

std::optional<std::string> dpm_info(MPI_Info info, const std::string& key) {
  if (info == MPI_INFO_NULL || info == nullptr || !info->valid()) return std::nullopt;
  for (const auto& [k, v] : info->entries)
    if (k == key) return v;
  return std::nullopt;
}

int dpm_check_call(const char* fn, MPI_Comm comm, int root, MPI_Comm* newcomm) {
  if (comm == nullptr || !comm->valid()) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (comm->is_inter()) return mpi_error(comm, fn, MPI_ERR_COMM, "not valid on an intercommunicator");
  if (newcomm == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "the new communicator's pointer is NULL");
  *newcomm = MPI_COMM_NULL;
  if (root < 0 || root >= comm->size())
    return mpi_error(
        comm, fn, MPI_ERR_ROOT,
        "invalid root " + std::to_string(root) + " (communicator size " + std::to_string(comm->size()) + ")");
  return MPI_SUCCESS;
}

int dpm_finish(const char* fn, MPI_Comm comm, int root, bool accepting, DpmLink* link, const Status& root_error,
               int root_class, MPI_Comm* newcomm) {
  auto c = dpm_join_groups(*comm, root, accepting, link, root_error, dpm_call_deadline());
  if (!c.ok()) {
    // The root reports its own finding with its class; the members what it told them.
    const int cls = comm->rank() == root && !root_error.ok() ? root_class : mpi_class_of(c.status());
    return mpi_error(comm, fn, cls == MPI_ERR_INTERN ? MPI_ERR_OTHER : cls, c.status().message());
  }
  *newcomm = *c;
  return MPI_SUCCESS;
}

}  // namespace lz::rt

int lz_dpm_connect_parent() {
  const char* port = std::getenv("LZ_DPM_PARENT");
  if (port == nullptr || *port == '\0') return MPI_SUCCESS;
  LZ_MPI_ENTRY("MPI_Init");
  const std::string name = port;
  // Not for this process's own children.
  unsetenv("LZ_DPM_PARENT");
  lz::rt::DpmLink link;
  lz::Status err;
  if (MPI_COMM_WORLD->rank() == 0) {
    auto l = lz::rt::dpm_connect_port(name, lz::rt::dpm_call_deadline(), lz::rt::dpm_idle());
    if (l.ok())
      link = std::move(*l);
    else
      err = l.status().with_context("the parent job's port");
  }
  const int e =
      lz::rt::dpm_finish("MPI_Init", MPI_COMM_WORLD, 0, false, &link, err, MPI_ERR_SPAWN, &lz::rt::dpm_parent());
  // Its name, as MPI-3.1 section 10.3.2 asks.
  if (e == MPI_SUCCESS) lz::rt::dpm_parent()->name = "MPI_COMM_PARENT";
  return e;
}

extern "C" {

int MPI_Open_port(MPI_Info info, char* port_name) {
  static constexpr const char* kFn = "MPI_Open_port";
  LZ_MPI_ENTRY(kFn);
  (void)info;  // no key is defined for it
  if (port_name == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "port_name is NULL");
  auto port = lz::rt::DpmPort::open();
  if (!port.ok()) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OTHER, port.status().message());
  const std::string name = (*port)->name();
  if (name.size() >= MPI_MAX_PORT_NAME)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OTHER,
                     "the port's name (" + std::to_string(name.size()) + " bytes: one address per interface) " +
                         "does not fit MPI_MAX_PORT_NAME");
  std::memcpy(port_name, name.c_str(), name.size() + 1);
  lz::rt::dpm_ports()[name] = std::move(*port);
  return MPI_SUCCESS;
}

int MPI_Close_port(const char* port_name) {
  static constexpr const char* kFn = "MPI_Close_port";
  LZ_MPI_ENTRY(kFn);
  if (port_name == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "port_name is NULL");
  if (lz::rt::dpm_ports().erase(port_name) == 0)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_PORT,
                     std::string("'") + port_name + "' is not a port this process opened (MPI_Open_port)");
  return MPI_SUCCESS;
}

int MPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Comm_accept";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (int e = lz::rt::dpm_check_call(kFn, comm, root, newcomm)) return e;
  lz::rt::DpmCallGuard busy;
  lz::rt::DpmLink link;
  lz::Status err;
  if (comm->rank() == root) {
    auto it = port_name != nullptr ? lz::rt::dpm_ports().find(port_name) : lz::rt::dpm_ports().end();
    if (it == lz::rt::dpm_ports().end()) {
      err = lz::InvalidArgument(std::string("'") + (port_name ? port_name : "(null)") +
                                "' is not a port this process opened (MPI_Open_port)");
    } else {
      auto l = it->second->accept(lz::rt::dpm_call_deadline(), lz::rt::dpm_idle());
      if (l.ok())
        link = std::move(*l);
      else
        err = l.status();
    }
  }
  return lz::rt::dpm_finish(kFn, comm, root, true, &link, err,
                            err.code() == lz::Code::kInvalidArgument ? MPI_ERR_PORT : MPI_ERR_OTHER, newcomm);
}

int MPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Comm_connect";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (int e = lz::rt::dpm_check_call(kFn, comm, root, newcomm)) return e;
  lz::rt::DpmCallGuard busy;
  lz::rt::DpmLink link;
  lz::Status err;
  if (comm->rank() == root) {
    auto l = port_name != nullptr ? lz::rt::dpm_connect_port(port_name, lz::rt::dpm_call_deadline(), lz::rt::dpm_idle())
                                  : lz::StatusOr<lz::rt::DpmLink>(lz::InvalidArgument("port_name is NULL"));
    if (l.ok())
      link = std::move(*l);
    else
      err = l.status();
  }
  return lz::rt::dpm_finish(kFn, comm, root, false, &link, err, MPI_ERR_PORT, newcomm);
}

int MPI_Comm_disconnect(MPI_Comm* comm) {
  static constexpr const char* kFn = "MPI_Comm_disconnect";
  LZ_MPI_ENTRY(kFn);
  if (comm == nullptr || *comm == nullptr || !(*comm)->valid())
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  if ((*comm)->predefined()) return mpi_error(*comm, kFn, MPI_ERR_COMM, "cannot disconnect a predefined communicator");
  // Every process of both groups is here: what was sent on it has arrived
  // (MPI's non-overtaking order puts it before the barrier's messages).
  if (int e = MPI_Barrier(*comm)) return e;
  lz::rt::dpm_forget(*comm);
  return MPI_Comm_free(comm);
}

int MPI_Comm_get_parent(MPI_Comm* parent) {
  static constexpr const char* kFn = "MPI_Comm_get_parent";
  LZ_MPI_ENTRY(kFn);
  if (parent == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "parent is NULL");
  *parent = lz::rt::dpm_parent();
  return MPI_SUCCESS;
}

int MPI_Comm_join(int fd, MPI_Comm* intercomm) {
  static constexpr const char* kFn = "MPI_Comm_join";
  LZ_MPI_ENTRY(kFn);
  if (intercomm == nullptr) return mpi_error(MPI_COMM_SELF, kFn, MPI_ERR_ARG, "intercomm is NULL");
  *intercomm = MPI_COMM_NULL;
  lz::rt::DpmCallGuard busy;
  // Each side opens a port and sends its name over the socket; the smaller
  // name accepts, the other connects. The socket itself carries nothing else.
  lz::UniqueFd mine(::dup(fd));
  if (!mine.valid()) return mpi_error(MPI_COMM_SELF, kFn, MPI_ERR_ARG, "fd " + std::to_string(fd) + " is not open");
  lz::rt::DpmLink socket(std::move(mine));
  auto port = lz::rt::DpmPort::open();
  if (!port.ok()) return mpi_error(MPI_COMM_SELF, kFn, MPI_ERR_OTHER, port.status().message());
  const double deadline = lz::rt::dpm_call_deadline();
  const auto idle = lz::rt::dpm_idle();
  lz::Status s = socket.send((*port)->name(), deadline, idle);
  auto theirs = s.ok() ? socket.recv(deadline, idle) : lz::StatusOr<std::string>(s);
  if (!theirs.ok())
    return mpi_error(MPI_COMM_SELF, kFn, MPI_ERR_ARG,
                     "fd " + std::to_string(fd) + ": " + theirs.status().message() +
                         " (MPI_Comm_join needs a connected socket with MPI_Comm_join at its other end)");
  const bool accepting = (*port)->name() < *theirs;
  lz::rt::DpmLink link;
  lz::Status err;
  auto l = accepting ? (*port)->accept(deadline, idle) : lz::rt::dpm_connect_port(*theirs, deadline, idle);
  if (l.ok())
    link = std::move(*l);
  else
    err = l.status();
  return lz::rt::dpm_finish(kFn, MPI_COMM_SELF, 0, accepting, &link, err, MPI_ERR_OTHER, intercomm);
}

}  // extern "C"
