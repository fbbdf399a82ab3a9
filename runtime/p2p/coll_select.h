// Per-communicator selection of collective modules (the coll framework's
// "stacking"): each of the sixteen functions is taken from the
// highest-priority selected module that provides it on this communicator.
//
//   LZ_RETURN_IF_ERROR(lz::rt::coll_enable(*newcomm));   // comm_factory, for every new communicator
//   comm->coll_table[lz::coll::kAllreduce]->allreduce(...);
//
// With `--mca coll tuned,basic`, tuned (priority 30) provides what it
// implements and basic (10) the rest; `--mca coll basic` forces the linear
// reference algorithms everywhere.
#pragma once

#include "lazarus/status.h"
#include "p2p/comm.h"

namespace lz::rt {

// Asks every module of runtime().coll_modules() (best first) once which
// functions it provides on `comm`, until every function has a provider, and
// fills comm.coll_table; the modules asked are recorded in comm.coll_enabled,
// which comm.teardown() disables when the communicator is freed. Errors
// (kUnavailable) when some function has no provider, naming it and the
// selected modules: the communicator cannot be created.
Status coll_enable(Comm& comm);

}  // namespace lz::rt
