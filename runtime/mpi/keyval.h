// Keyvals of communicator and datatype attributes (MPI_Comm_create_keyval,
// MPI_Type_create_keyval, MPI_Win_create_keyval): the registry behind the int handles, one handle
// space for every kind of object. Handles 1-7 are the predefined
// communicator attributes (mpi.h: MPI_TAG_UB ...), read-only and answered by
// mpi_attr.cpp itself; created keyvals follow. A keyval lives while its
// handle is not freed or an attribute still uses it (MPI: freeing a keyval
// in use defers its end).
#pragma once

#include "mpi.h"

namespace lz::rt {

struct Keyval {
  // The kind of object it names attributes of; on another kind the handle
  // is invalid (MPI_ERR_KEYVAL).
  enum class Kind { kComm, kType, kWin };
  Kind kind = Kind::kComm;
  MPI_Comm_copy_attr_function* copy = nullptr;  // kComm
  MPI_Comm_delete_attr_function* del = nullptr;
  MPI_Type_copy_attr_function* type_copy = nullptr;  // kType
  MPI_Type_delete_attr_function* type_del = nullptr;
  MPI_Win_copy_attr_function* win_copy = nullptr;  // kWin (never called: windows are not duplicated)
  MPI_Win_delete_attr_function* win_del = nullptr;
  void* extra_state = nullptr;
  int refs = 1;  // the handle, plus one per attached attribute
  bool handle_freed = false;
};

constexpr int kFirstUserKeyval = 16;
inline bool is_predefined_keyval(int k) { return k >= MPI_TAG_UB && k <= MPI_LASTUSEDCODE; }

int keyval_create(const Keyval& k);
// The keyval of handle `k` for objects of `kind`, or null (never created,
// ended, or of another kind).
Keyval* keyval_find(int k, Keyval::Kind kind);
void keyval_retain(int k);
// Drops one reference; the keyval ends at zero.
void keyval_release(int k);
// MPI_*_free_keyval: drops the handle's reference, once. Freeing it again
// while attributes still use it (a delete callback that frees its own
// keyval, a copy of the handle freed too) does nothing: the keyval ends
// with its last attribute, as MPICH has it.
void keyval_free_handle(int k);

}  // namespace lz::rt
