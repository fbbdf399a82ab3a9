// Keyvals of communicator attributes (MPI_Comm_create_keyval): the registry
// behind the int handles. Handles 1-7 are the predefined attributes (mpi.h:
// MPI_TAG_UB ...), read-only and answered by mpi_attr.cpp itself; created
// keyvals follow. A keyval lives while its handle is not freed or an
// attribute still uses it (MPI: freeing a keyval in use defers its end).
#pragma once

#include "mpi.h"

namespace lz::rt {

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  int refs = 1;  // the handle, plus one per attached attribute
};

constexpr int kFirstUserKeyval = 16;
inline bool is_predefined_keyval(int k) { return k >= MPI_TAG_UB && k <= MPI_LASTUSEDCODE; }

int keyval_create(const Keyval& k);
// The keyval of handle `k`, or null (never created, or ended).
Keyval* keyval_find(int k);
void keyval_retain(int k);
// Drops one reference; the keyval ends at zero.
void keyval_release(int k);

}  // namespace lz::rt
