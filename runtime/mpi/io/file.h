// The MPI_File object (MPI-3.1 chapter 13) and what every MPI_File_* call
// of the binding shares: argument checks, the file's error handler, and one
// data access (a view position, a buffer) carried out by runtime/io.
//
//   if (int e = check_file(kFn, fh)) return e;
//   Transfer t{fh, /*write=*/true, fh->pointer * fh->etype_size(), buf, count, datatype};
//   if (int e = prepare(kFn, &t)) return e;
//   return finish(kFn, t, run(t), status);   // status, pointer, errors
//
// Lifetime: MPI_File_open makes the object, MPI_File_close frees it after
// its non-blocking operations are done. The descriptor is opened with
// O_CLOEXEC and belongs to the rank (a core image holds it; the checkpoint
// records and rolls the file back like any file the program wrote:
// runtime/procfiles). The shared file pointer is an MPI_Offset in a window
// of the file's communicator at rank 0 (shared_pointer.h), so it is in
// rank 0's image and moves with it, and nothing hides in a file beside
// the data as ROMIO's does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/file_access.h"
#include "io/file_view.h"
#include "mpi.h"

struct lz_mpi_file_s {
  static constexpr uint32_t kMagic = 0x46494c45;  // "FILE"
  uint32_t magic = kMagic;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the one it was opened on
  std::string path;               // as the program named it
  int amode = 0;
  int fd = -1;
  bool fd_readable = true;        // a write-only file's descriptor reads too, unless the system refused
  bool views_sieve = false;       // some rank's view is one whose writes are sieved (set_view agrees it)
  std::vector<std::pair<std::string, std::string>> info;  // the hints given (open, set_view, set_info)
  // The view. Its etype and filetype are the program's, or, where the
  // representation gives a type they hold another size in the file, the
  // two rebuilt at their file sizes (mpi/datatype/datarep_layout.h); then
  // `as_set` keeps the program's for MPI_File_get_view. Stream positions
  // count the file's bytes either way.
  lz::io::FileView view;
  std::optional<lz::io::FileView> as_set;
  std::string datarep = "native";
  int64_t pointer = 0;  // the individual file pointer, in etypes of the view
  bool atomic = false;
  lz::io::AccessOptions access;  // sieving (hints) and atomic mode
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  MPI_Win shared = MPI_WIN_NULL;  // the shared file pointer (rank 0: one MPI_Offset)
  std::vector<int> aggregators;   // collective buffering's ranks (collective.cpp), set at the first use
  // The shared pointer since its last collective reset (open, set_view,
  // seek_shared): the value set then, and what this rank's accesses have
  // added to it since. A cr=app snapshot records them (file_record.h): the
  // pointer at the ranks' safe points is the reset plus every rank's part.
  uint64_t shared_resets = 0;
  MPI_Offset shared_reset_to = 0;
  MPI_Offset shared_added = 0;
  std::string abs_path;  // `path` made absolute at the open (cr=app records)
  // After a cr=app restart: what the snapshot recorded of this file, put
  // back when the view is the recorded one (file_record.h).
  struct Recorded {
    uint64_t etype_size = 1;
    std::string datarep = "native";
    std::optional<MPI_Offset> pointer;  // nullopt: the old ranks' differ and the rank count changed
    bool atomic = false;
    std::optional<MPI_Offset> shared;  // nullopt: not known (see file_record.cpp)
  };
  std::optional<Recorded> recorded;
  // A split collective begun (MPI_File_*_begin) and not yet ended.
  bool split_active = false;
  const void* split_buf = nullptr;
  MPI_Status split_status{};
  int split_error = MPI_SUCCESS;

  lz_mpi_file_s();
  bool valid() const { return magic == kMagic; }
  size_t etype_size() const { return view.etype_size(); }  // in the file
  // The view's etype and filetype as the program set them.
  const lz::io::FileView& view_as_set() const { return as_set ? *as_set : view; }
  bool writable() const { return (amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR)) != 0; }
  bool readable() const { return (amode & MPI_MODE_WRONLY) == 0; }
  // The hint `key`'s value, or `dflt`.
  std::string hint(const std::string& key, const std::string& dflt = "") const;
};

namespace lz::rt::io {

// Applies `fh`'s error handler (the default file handler, MPI_ERRORS_RETURN
// unless MPI_File_set_errhandler(MPI_FILE_NULL) changed it, when `fh` is
// MPI_FILE_NULL); returns the class when it returns.
int file_error(MPI_File fh, const char* function, int mpi_error_class, const std::string& message);
// The error handler that files opened from now on get.
MPI_Errhandler default_file_errhandler();
void set_default_file_errhandler(MPI_Errhandler h);
// The MPI error class of a failed system call's errno.
int class_of_errno(int err);

// MPI_ERR_FILE unless `fh` is an open file.
int check_file(const char* fn, MPI_File fh);
// check_file, then that the file may be read (`write` false) or written.
int check_access(const char* fn, MPI_File fh, bool write);

// One data access: `count` elements of `dt` at `buf`, at stream byte `start` of the view.
struct Transfer {
  MPI_File fh;
  bool write;
  uint64_t start;  // byte of the view's data stream
  void* buf;
  int count;
  MPI_Datatype dt;
  // Filled by prepare()/run():
  uint64_t bytes = 0;         // the request's bytes in the file (its representation's sizes)
  uint64_t native_bytes = 0;  // the same packed in memory (equal but where the representation resizes a type)
  uint64_t done = 0;          // file bytes moved (fewer at the end of the file)
  int error = MPI_SUCCESS;
  std::string error_text;
};
// Checks the buffer's arguments against the view (count, committed type, a
// whole number of etypes in the file); sets t->bytes and t->native_bytes.
int prepare(const char* fn, Transfer* t);
// Moves the data (packing and converting as the view's representation
// needs); fills done/error. Calls no MPI function: the I/O thread runs it.
void run(Transfer* t);
// The bytes of a transfer as the file holds them (its representation):
// the user's buffer itself when it is contiguous and native, else a
// temporary, packed and converted. run() and the collective algorithm use it.
class FileBytes {
 public:
  // A write's bytes, converted; nullptr (t->error set) when a conversion failed.
  char* for_write(Transfer* t);
  // Where a read's t->bytes bytes go.
  char* for_read(Transfer* t);
  // After a read of `got` bytes into for_read(): unpacks and converts them
  // into the user's buffer, sets t->done.
  void deliver(Transfer* t, uint64_t got);

 private:
  std::unique_ptr<char[]> tmp_;
};
// The status of a completed transfer (count: the memory bytes of the
// `done` file bytes: whole elements where the representation resizes).
void fill_status(const Transfer& t, MPI_Status* st);
// The file's error handler for a failed transfer, or MPI_SUCCESS.
int finish(const char* fn, const Transfer& t, MPI_Status* st);

// The view position of an explicit offset (in etypes), as a stream byte.
inline uint64_t stream_byte(MPI_File fh, MPI_Offset etypes) { return static_cast<uint64_t>(etypes) * fh->etype_size(); }

}  // namespace lz::rt::io

namespace lz::rt::io {

// Where an access starts.
enum class Position {
  kExplicit,    // an offset the call gives, in etypes of the view
  kIndividual,  // the rank's own file pointer
  kShared,      // the file's shared pointer
};
// Checks an access's arguments and positions it in *t (prepared): at
// `offset` (kExplicit only), at the individual pointer, which is not moved
// here (a blocking call moves it past what it accessed, a non-blocking one
// by what it asks), or at the shared pointer, which is moved now, by what
// is asked, atomically among the ranks.
int place(const char* fn, MPI_File fh, bool write, Position at, MPI_Offset offset, const void* buf, int count,
          MPI_Datatype dt, Transfer* t);
// A blocking independent access (MPI_File_read_at, _write, _read_shared ...).
int access(const char* fn, MPI_File fh, bool write, Position at, MPI_Offset offset, const void* buf, int count,
           MPI_Datatype dt, MPI_Status* st);
// Collective, in rank order at the shared pointer (MPI_File_*_ordered):
int access_ordered(const char* fn, MPI_File fh, bool write, const void* buf, int count, MPI_Datatype dt,
                   MPI_Status* st);

}  // namespace lz::rt::io

namespace lz::rt::io {

// Collective access (MPI_File_*_all): at explicit `offset` (in etypes), or
// at the individual pointer when `at_pointer` (offset ignored). Every rank
// of the file's communicator calls it (collective.cpp: two-phase I/O).
int access_all(const char* fn, MPI_File fh, bool write, bool at_pointer, MPI_Offset offset, const void* buf, int count,
               MPI_Datatype dt, MPI_Status* st);

}  // namespace lz::rt::io
