// MPI binding: blocking data access (MPI-3.1 section 13.4): explicit
// offsets, individual pointers and the shared pointer; independent,
// collective and ordered; and the split collectives (_begin / _end), which
// do their work at _begin. Each is one call into access.cpp / collective.cpp.
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/io/file.h"

using namespace lz::rt::io;

namespace {

// The begin of a split collective: runs it and keeps its status for _end.
int split_begin(MPI_File fh, const void* buf, int rc, const MPI_Status& st) {
  fh->split_active = true;
  fh->split_buf = buf;
  fh->split_status = st;
  fh->split_error = rc;
  return rc;
}

int check_no_split(const char* fn, MPI_File fh) {
  if (int e = check_file(fn, fh)) return e;
  if (fh->split_active)
    return file_error(fh, fn, MPI_ERR_OTHER, "a split collective is already active on this file (MPI-3.1 13.4.5)");
  return MPI_SUCCESS;
}

int split_end(const char* fn, MPI_File fh, const void* buf, MPI_Status* status) {
  if (int e = check_file(fn, fh)) return e;
  if (!fh->split_active) return file_error(fh, fn, MPI_ERR_OTHER, "no split collective was begun on this file");
  if (buf != fh->split_buf)
    return file_error(fh, fn, MPI_ERR_BUFFER, "the buffer differs from the one given to the _begin call");
  fh->split_active = false;
  if (status != MPI_STATUS_IGNORE) *status = fh->split_status;
  return fh->split_error;
}

}  // namespace

extern "C" {

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_at";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, false, Position::kExplicit, offset, buf, count, datatype, status);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                         MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_at_all";
  LZ_MPI_ENTRY(kFn);
  return access_all(kFn, fh, false, false, offset, buf, count, datatype, status);
}

int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, false, Position::kIndividual, 0, buf, count, datatype, status);
}

int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_all";
  LZ_MPI_ENTRY(kFn);
  return access_all(kFn, fh, false, true, 0, buf, count, datatype, status);
}

int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_shared";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, false, Position::kShared, 0, buf, count, datatype, status);
}

int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_ordered";
  LZ_MPI_ENTRY(kFn);
  return access_ordered(kFn, fh, false, buf, count, datatype, status);
}

int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_read_at_all_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_all(kFn, fh, false, false, offset, buf, count, datatype, &st), st);
}

int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_read_all_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_all(kFn, fh, false, true, 0, buf, count, datatype, &st), st);
}

int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_read_ordered_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_ordered(kFn, fh, false, buf, count, datatype, &st), st);
}

int MPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_at_all_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

int MPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_all_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

int MPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_read_ordered_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_at";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, true, Position::kExplicit, offset, buf, count, datatype, status);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_at_all";
  LZ_MPI_ENTRY(kFn);
  return access_all(kFn, fh, true, false, offset, buf, count, datatype, status);
}

int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, true, Position::kIndividual, 0, buf, count, datatype, status);
}

int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_all";
  LZ_MPI_ENTRY(kFn);
  return access_all(kFn, fh, true, true, 0, buf, count, datatype, status);
}

int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_shared";
  LZ_MPI_ENTRY(kFn);
  return access(kFn, fh, true, Position::kShared, 0, buf, count, datatype, status);
}

int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_ordered";
  LZ_MPI_ENTRY(kFn);
  return access_ordered(kFn, fh, true, buf, count, datatype, status);
}

int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_write_at_all_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_all(kFn, fh, true, false, offset, buf, count, datatype, &st), st);
}

int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_write_all_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_all(kFn, fh, true, true, 0, buf, count, datatype, &st), st);
}

int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_File_write_ordered_begin";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_no_split(kFn, fh)) return e;
  MPI_Status st{};
  return split_begin(fh, buf, access_ordered(kFn, fh, true, buf, count, datatype, &st), st);
}

int MPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_at_all_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

int MPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_all_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

int MPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_File_write_ordered_end";
  LZ_MPI_ENTRY(kFn);
  return split_end(kFn, fh, buf, status);
}

}  // extern "C"
