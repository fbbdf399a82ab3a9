// MPI binding: file views and file pointers (MPI-3.1 sections 13.3, 13.4.3
// to 13.4.4 positioning, 13.5.1): MPI_File_set_view / _get_view,
// MPI_File_get_type_extent, MPI_File_seek / _get_position / _get_byte_offset
// and their shared-pointer twins. The view's mapping is io/file_view.h.
#include <sys/stat.h>

#include <cstring>
#include <string>

#include "io/io_queue.h"
#include "mpi.h"
#include "mpi/datatype/datarep.h"
#include "mpi/datatype/datarep_layout.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/io/file.h"
#include "mpi/io/file_record.h"
#include "mpi/io/hints.h"
#include "mpi/io/shared_pointer.h"

using lz::rt::io::check_file;
using lz::rt::io::file_error;

namespace {

bool known_datarep(const std::string& d) {
  return d == "native" || d == "internal" || d == "external32" || lz::rt::datarep::find(d) != nullptr;
}

MPI_Offset file_size(MPI_File fh) {
  struct stat st {};
  return fstat(fh->fd, &st) == 0 ? static_cast<MPI_Offset>(st.st_size) : 0;
}

// The new pointer of MPI_File_seek(offset, whence) from `current` (a valid whence).
MPI_Offset seek_target(MPI_File fh, MPI_Offset current, MPI_Offset offset, int whence) {
  switch (whence) {
    case MPI_SEEK_SET:
      return offset;
    case MPI_SEEK_CUR:
      return current + offset;
    case MPI_SEEK_END:
      return static_cast<MPI_Offset>(fh->view.stream_before(static_cast<uint64_t>(file_size(fh))) / fh->etype_size()) +
             offset;
    default:
      return -1;
  }
}

}  // namespace

extern "C" {

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                      MPI_Info info) {
  static constexpr const char* kFn = "MPI_File_set_view";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (etype == MPI_DATATYPE_NULL || filetype == MPI_DATATYPE_NULL)
    return file_error(fh, kFn, MPI_ERR_TYPE, "invalid etype or filetype (MPI_DATATYPE_NULL)");
  if (!etype->is_committed() || !filetype->is_committed())
    return file_error(fh, kFn, MPI_ERR_TYPE, "the etype and the filetype must be committed");
  if (datarep == nullptr || !known_datarep(datarep))
    return file_error(fh, kFn, MPI_ERR_UNSUPPORTED_DATAREP,
                      std::string("unknown data representation '") + (datarep ? datarep : "(null)") +
                          "': use \"native\", \"internal\", \"external32\" or one of MPI_Register_datarep");
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid()))
    return file_error(fh, kFn, MPI_ERR_INFO, "invalid info object");
  // The view's types as the file lays them out: the program's, or rebuilt
  // at the file's sizes where the representation changes a type's size.
  auto etype_layout = lz::rt::datarep::file_layout(datarep, *etype);
  if (!etype_layout.ok()) return file_error(fh, kFn, MPI_ERR_UNSUPPORTED_DATAREP, etype_layout.status().message());
  const lz::rt::datarep::HeldType file_etype(*etype_layout);
  auto filetype_layout = lz::rt::datarep::file_layout(datarep, *filetype);
  if (!filetype_layout.ok())
    return file_error(fh, kFn, MPI_ERR_UNSUPPORTED_DATAREP, filetype_layout.status().message());
  const lz::rt::datarep::HeldType file_filetype(*filetype_layout);
  bool layout = false;
  const std::string why = lz::io::FileView::invalid_filetype(*file_etype, *file_filetype, !fh->writable(), &layout);
  if (!why.empty()) return file_error(fh, kFn, layout ? MPI_ERR_IO : MPI_ERR_TYPE, why);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!(fh->amode & MPI_MODE_SEQUENTIAL))
      return file_error(fh, kFn, MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
    MPI_Offset at = 0;
    if (int e = lz::rt::io::shared_pointer_fetch_add(fh, 0, &at))
      return file_error(fh, kFn, e, "reading the shared pointer");
    disp = static_cast<MPI_Offset>(fh->view.file_offset(static_cast<uint64_t>(at) * fh->etype_size()));
  } else if (disp < 0) {
    return file_error(fh, kFn, MPI_ERR_ARG, "negative displacement " + std::to_string(disp));
  }
  lz::io::IoQueue::instance().drain();
  // Collective: nobody uses the old shared pointer once it is reset.
  PMPI_Barrier(fh->comm);
  fh->view = lz::io::FileView(disp, file_etype.get(), file_filetype.get());
  fh->as_set.reset();
  if (file_etype.get() != etype || file_filetype.get() != filetype) fh->as_set.emplace(disp, etype, filetype);
  fh->datarep = datarep;
  fh->pointer = 0;
  // Whether some rank may sieve its writes: its view has holes, and data
  // in at least a quarter of the bytes it spans (sparser, sieving moves
  // more than it saves; io/file_access.cpp sieves a span at most 4 times
  // its data).
  const lz_datatype_s& tiled = *fh->view.filetype();
  const auto extent = static_cast<uint64_t>(tiled.extent());
  const bool holes = !tiled.is_contiguous() || tiled.size() != extent;
  int sieves = holes && 4 * tiled.size() >= extent ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &sieves, 1, MPI_INT, MPI_MAX, fh->comm);
  fh->views_sieve = sieves != 0;
  if (info != MPI_INFO_NULL) lz::rt::io::merge_hints(fh, info->entries);
  lz::rt::io::apply_hints(fh);
  // Both pointers at the start of the view, or where a cr=app restart's
  // record of the file puts them.
  MPI_Offset shared_at = 0;
  lz::rt::io::take_record(fh, &shared_at);
  lz::rt::io::shared_pointer_reset(fh, shared_at);
  PMPI_Barrier(fh->comm);
  return MPI_SUCCESS;
}

int MPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype, char* datarep) {
  static constexpr const char* kFn = "MPI_File_get_view";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (disp == nullptr || etype == nullptr || filetype == nullptr || datarep == nullptr)
    return file_error(fh, kFn, MPI_ERR_ARG, "an output argument is NULL");
  *disp = fh->view.disp();
  const lz::io::FileView& as_set = fh->view_as_set();
  // A derived type comes back as a new type the program frees.
  auto give = [](const lz_datatype_s* t) -> MPI_Datatype {
    if (t->is_predefined()) return const_cast<lz_datatype_s*>(t);
    auto d = lz_datatype_s::dup(*t);
    if (!d.ok()) return MPI_DATATYPE_NULL;
    (*d)->commit();
    return *d;
  };
  *etype = give(as_set.etype());
  *filetype = give(as_set.filetype());
  std::strncpy(datarep, fh->datarep.c_str(), MPI_MAX_DATAREP_STRING);
  return MPI_SUCCESS;
}

int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  static constexpr const char* kFn = "MPI_File_get_type_extent";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (datatype == MPI_DATATYPE_NULL) return file_error(fh, kFn, MPI_ERR_TYPE, "invalid datatype");
  if (extent == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "extent is NULL");
  // In the file's layout: the representation's sizes, byte displacements as given.
  auto in_file = lz::rt::datarep::file_layout(fh->datarep, *datatype);
  if (!in_file.ok()) return file_error(fh, kFn, MPI_ERR_UNSUPPORTED_DATAREP, in_file.status().message());
  *extent = lz::rt::datarep::HeldType(*in_file)->extent();
  return MPI_SUCCESS;
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char* kFn = "MPI_File_seek";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (fh->amode & MPI_MODE_SEQUENTIAL)
    return file_error(fh, kFn, MPI_ERR_UNSUPPORTED_OPERATION,
                      "a file opened MPI_MODE_SEQUENTIAL has no individual pointer");
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return file_error(fh, kFn, MPI_ERR_ARG, "invalid whence " + std::to_string(whence));
  const MPI_Offset to = seek_target(fh, fh->pointer, offset, whence);
  if (to < 0)
    return file_error(fh, kFn, MPI_ERR_ARG, "the pointer would be negative (" + std::to_string(to) + " etypes)");
  fh->pointer = to;
  lz::rt::io::forget_record(fh);
  return MPI_SUCCESS;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  static constexpr const char* kFn = "MPI_File_get_position";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (offset == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "offset is NULL");
  *offset = fh->pointer;
  return MPI_SUCCESS;
}

int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  static constexpr const char* kFn = "MPI_File_get_byte_offset";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (offset < 0) return file_error(fh, kFn, MPI_ERR_ARG, "negative offset " + std::to_string(offset));
  if (disp == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "disp is NULL");
  *disp = static_cast<MPI_Offset>(fh->view.file_offset(lz::rt::io::stream_byte(fh, offset)));
  return MPI_SUCCESS;
}

int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  static constexpr const char* kFn = "MPI_File_seek_shared";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return file_error(fh, kFn, MPI_ERR_ARG, "invalid whence " + std::to_string(whence));
  MPI_Offset args[4] = {offset, -offset, whence, -static_cast<MPI_Offset>(whence)}, agreed[4];
  PMPI_Allreduce(args, agreed, 4, MPI_OFFSET, MPI_MAX, fh->comm);
  if (agreed[0] != -agreed[1] || agreed[2] != -agreed[3])
    return file_error(fh, kFn, MPI_ERR_NOT_SAME, "the ranks gave different offsets or whence");
  int rank = 0;
  PMPI_Comm_rank(fh->comm, &rank);
  lz::rt::io::forget_record(fh);
  MPI_Offset to = 0;
  if (rank == 0) {
    MPI_Offset current = 0;
    lz::rt::io::shared_pointer_fetch_add(fh, 0, &current);
    to = seek_target(fh, current, offset, whence);
  }
  PMPI_Bcast(&to, 1, MPI_OFFSET, 0, fh->comm);
  if (to < 0) return file_error(fh, kFn, MPI_ERR_ARG, "the shared pointer would be negative");
  lz::rt::io::shared_pointer_reset(fh, to);
  PMPI_Barrier(fh->comm);  // the pointer is set before every later access
  return MPI_SUCCESS;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  static constexpr const char* kFn = "MPI_File_get_position_shared";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (offset == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "offset is NULL");
  if (int e = lz::rt::io::shared_pointer_fetch_add(fh, 0, offset))
    return file_error(fh, kFn, e, "reading the shared pointer failed");
  return MPI_SUCCESS;
}

}  // extern "C"
