#include "mpi/io/file.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "mpi/datatype/datarep.h"
#include "mpi/errors.h"

lz_mpi_file_s::lz_mpi_file_s() : view(0, MPI_BYTE, MPI_BYTE) {}

std::string lz_mpi_file_s::hint(const std::string& key, const std::string& dflt) const {
  for (const auto& [k, v] : info)
    if (k == key) return v;
  return dflt;
}

namespace lz::rt::io {

namespace {
MPI_Errhandler g_default_handler = MPI_ERRORS_RETURN;
}  // namespace

MPI_Errhandler default_file_errhandler() { return g_default_handler; }
void set_default_file_errhandler(MPI_Errhandler h) { g_default_handler = h; }

int file_error(MPI_File fh, const char* function, int mpi_error_class, const std::string& message) {
  const bool open = fh != MPI_FILE_NULL && fh->valid();
  MPI_Errhandler h = open ? fh->errhandler : g_default_handler;
  if (h == MPI_ERRORS_RETURN || h == nullptr) return mpi_error_class;
  if (h->kind == lz_mpi_errhandler_s::kUser) {
    int code = mpi_error_class;
    MPI_File f = open ? fh : MPI_FILE_NULL;
    if (h->file_fn != nullptr)
      h->file_fn(&f, &code);
    else if (h->fn != nullptr)
      h->fn(reinterpret_cast<MPI_Comm*>(&f), &code);
    return mpi_error_class;
  }
  fatal(function, mpi_error_class, open ? message + " (file " + fh->path + ")" : message);
}

int class_of_errno(int err) {
  switch (err) {
    case ENOENT:
      return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case ENOSPC:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
      return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY:
      return MPI_ERR_FILE_IN_USE;
    default:
      return MPI_ERR_IO;
  }
}

int check_file(const char* fn, MPI_File fh) {
  if (fh == MPI_FILE_NULL || !fh->valid()) return file_error(MPI_FILE_NULL, fn, MPI_ERR_FILE, "invalid file handle");
  return MPI_SUCCESS;
}

int check_access(const char* fn, MPI_File fh, bool write) {
  if (int e = check_file(fn, fh)) return e;
  if (write && !fh->writable())
    return file_error(fh, fn, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY: it cannot be written");
  if (!write && !fh->readable())
    return file_error(fh, fn, MPI_ERR_ACCESS, "the file was opened MPI_MODE_WRONLY: it cannot be read");
  return MPI_SUCCESS;
}

namespace {

// The native size of each basic type a representation must keep (the
// stream's layout is the native one; only the bytes differ).
std::string representation_problem(MPI_File fh, const lz::dt::Datatype& dt) {
  if (fh->datarep == "native" || fh->datarep == "internal") return "";
  if (fh->datarep == "external32") {
    if (lz::rt::datarep::external32_size(dt) != dt.size())
      return "the datatype " + dt.name() + " has another size in \"external32\" than in memory (" +
             std::to_string(lz::rt::datarep::external32_size(dt)) + " bytes against " + std::to_string(dt.size()) +
             "); Lazarus' file views convert only types of the same size (MPI_LONG is 4 bytes there: use "
             "MPI_INT or MPI_LONG_LONG)";
    return "";
  }
  return "";  // a registered representation: its extent function was checked at MPI_File_set_view
}

}  // namespace

int prepare(const char* fn, Transfer* t) {
  MPI_File fh = t->fh;
  if (t->count < 0) return file_error(fh, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(t->count));
  if (t->dt == MPI_DATATYPE_NULL || t->dt == nullptr)
    return file_error(fh, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!t->dt->is_committed())
    return file_error(fh, fn, MPI_ERR_TYPE, "datatype " + t->dt->name() + " is not committed");
  t->bytes = t->dt->size() * static_cast<uint64_t>(t->count);
  if (t->bytes % fh->etype_size() != 0)
    return file_error(fh, fn, MPI_ERR_TYPE,
                      std::to_string(t->count) + " elements of " + t->dt->name() + " are " + std::to_string(t->bytes) +
                          " bytes, not a whole number of the view's etype (" + fh->view.etype()->name() + ", " +
                          std::to_string(fh->etype_size()) + " bytes)");
  const std::string problem = representation_problem(fh, *t->dt);
  if (!problem.empty()) return file_error(fh, fn, MPI_ERR_UNSUPPORTED_DATAREP, problem);
  return MPI_SUCCESS;
}

void run(Transfer* t) {
  MPI_File fh = t->fh;
  if (t->bytes == 0) return;
  const lz::dt::Datatype& dt = *t->dt;
  std::vector<lz::io::Segment> segs;
  fh->view.map(t->start, t->bytes, &segs);

  const bool native = fh->datarep == "native" || fh->datarep == "internal";
  const lz::rt::datarep::Registered* reg =
      native || fh->datarep == "external32" ? nullptr : lz::rt::datarep::find(fh->datarep);
  // The file's bytes: the user's own when they are contiguous and native.
  char* direct = static_cast<char*>(t->buf) + dt.true_lb();
  std::unique_ptr<char[]> tmp;
  char* filebytes = direct;
  if (!native || !dt.is_contiguous()) {
    tmp.reset(new char[t->bytes]);
    filebytes = tmp.get();
  }
  auto fail = [t](int cls, const std::string& text) {
    t->error = cls;
    t->error_text = text;
  };
  if (t->write) {
    if (filebytes != direct) {
      if (reg != nullptr && reg->write != nullptr) {
        if (int rc = reg->write(t->buf, t->dt, t->count, filebytes, 0, reg->extra_state))
          return fail(MPI_ERR_CONVERSION,
                      "the write conversion of \"" + fh->datarep + "\" returned " + std::to_string(rc));
      } else if (fh->datarep == "external32") {
        std::unique_ptr<char[]> packed(new char[t->bytes]);
        dt.pack(t->buf, t->count, packed.get());
        lz::rt::datarep::external32_convert(dt, t->count, reinterpret_cast<unsigned char*>(packed.get()),
                                            reinterpret_cast<unsigned char*>(filebytes), true);
      } else {
        dt.pack(t->buf, t->count, filebytes);
      }
    }
    int err = 0;
    auto n = lz::io::write_segments(fh->fd, segs, filebytes, fh->access, &err);
    if (!n.ok()) return fail(class_of_errno(err), n.status().message());
    t->done = *n;
    return;
  }
  int err = 0;
  auto n = lz::io::read_segments(fh->fd, segs, filebytes, fh->access, &err);
  if (!n.ok()) return fail(class_of_errno(err), n.status().message());
  // Whole etypes only: a partial one at the end of the file is not data.
  t->done = *n - *n % fh->etype_size();
  if (filebytes == direct) return;
  // Only whole elements are converted by a representation's function; the
  // rest of a partial element is unpacked natively.
  if (reg != nullptr && reg->read != nullptr) {
    const int whole = static_cast<int>(dt.size() ? t->done / dt.size() : 0);
    if (int rc = reg->read(t->buf, t->dt, whole, filebytes, 0, reg->extra_state))
      return fail(MPI_ERR_CONVERSION, "the read conversion of \"" + fh->datarep + "\" returned " + std::to_string(rc));
    return;
  }
  if (fh->datarep == "external32") {
    std::unique_ptr<char[]> native_bytes(new char[t->bytes]);
    const int whole = static_cast<int>(dt.size() ? t->done / dt.size() : 0);
    lz::rt::datarep::external32_convert(dt, whole, reinterpret_cast<unsigned char*>(filebytes),
                                        reinterpret_cast<unsigned char*>(native_bytes.get()), false);
    dt.unpack(native_bytes.get(), static_cast<size_t>(whole) * dt.size(), t->count, t->buf);
    return;
  }
  dt.unpack(filebytes, t->done, t->count, t->buf);
}

void fill_status(const Transfer& t, MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE || st == nullptr) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->lz_cancelled = 0;
  st->lz_bytes = static_cast<MPI_Count>(t.done);
}

int finish(const char* fn, const Transfer& t, MPI_Status* st) {
  fill_status(t, st);
  if (t.error != MPI_SUCCESS) return file_error(t.fh, fn, t.error, t.error_text);
  return MPI_SUCCESS;
}

}  // namespace lz::rt::io
