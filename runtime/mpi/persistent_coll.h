// Persistent collectives (MPI-4.0 section 6.13, MPI_Allreduce_init and the
// rest; mpi_coll_init.cpp): each is its non-blocking call with the
// arguments bound. MPI_Start runs that call again with the schedule going
// into the persistent request instead of a new one (nbc_start::start reads
// g_start_target); the *_init call runs it once with the schedule dropped,
// so that a bad argument is reported then (by the non-blocking call's name),
// and keeps the tag that run drew: starts in another order on each rank
// still match, by the order of initialization, as MPI-4.0 says.
//
//   return persistent_coll::make(kFn, comm, request, {datatype}, {op},
//       [=](MPI_Request* r) { return MPI_Iallreduce(sbuf, rbuf, n, datatype, op, comm, r); });
//
// The datatypes and ops given are retained until MPI_Request_free; count,
// displacement and datatype arrays are read at each start, so they must not
// change until the request is freed.
#pragma once

#include <functional>
#include <initializer_list>
#include <vector>

#include "mpi.h"
#include "p2p/request.h"

namespace lz::rt {

// Where nbc_start::start() puts a schedule: into a new request (both null
// and false), into a persistent collective's own request (MPI_Start), or
// nowhere (the *_init call's check of its arguments).
struct StartTarget {
  Request* into = nullptr;
  bool dry_run = false;
};
extern thread_local StartTarget g_start_target;

struct PersistentColl {
  std::function<int(MPI_Request*)> start;  // the non-blocking call, arguments bound
  std::vector<MPI_Datatype> types;         // retained
  std::vector<MPI_Op> ops;                 // retained
  int tag = 0;  // drawn by the dry run: every start's (p2p/nbc_algorithms.h NbcFixedTag)
  ~PersistentColl();
};

namespace persistent_coll {

// The *_init call's work: checks the arguments by a dry run of `start`,
// then hands out an inactive persistent request.
int make(const char* fn, MPI_Comm comm, MPI_Request* request, std::initializer_list<MPI_Datatype> types,
         std::initializer_list<MPI_Op> ops, std::function<int(MPI_Request*)> start);
// MPI_Start of `r` (kColl, persistent).
int start(Request* r);
// MPI_Request_free of `r` (kColl, persistent): refused while active.
int free(Request* r);

}  // namespace persistent_coll
}  // namespace lz::rt
