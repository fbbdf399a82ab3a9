#include "mpi/io/file.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "mpi/datatype/datarep.h"
#include "mpi/datatype/datarep_layout.h"
#include "mpi/errors.h"
#include "mpi/io/file_record.h"

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

bool is_native(MPI_File fh) { return fh->datarep == "native" || fh->datarep == "internal"; }

const lz::rt::datarep::Registered* registered(MPI_File fh) {
  return is_native(fh) || fh->datarep == "external32" ? nullptr : lz::rt::datarep::find(fh->datarep);
}

}  // namespace

int prepare(const char* fn, Transfer* t) {
  MPI_File fh = t->fh;
  if (t->count < 0) return file_error(fh, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(t->count));
  if (t->dt == MPI_DATATYPE_NULL || t->dt == nullptr)
    return file_error(fh, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!t->dt->is_committed())
    return file_error(fh, fn, MPI_ERR_TYPE, "datatype " + t->dt->name() + " is not committed");
  t->native_bytes = t->dt->size() * static_cast<uint64_t>(t->count);
  auto file_size = lz::rt::datarep::file_type_size(fh->datarep, *t->dt);
  if (!file_size.ok()) return file_error(fh, fn, MPI_ERR_UNSUPPORTED_DATAREP, file_size.status().message());
  t->bytes = *file_size * static_cast<uint64_t>(t->count);
  forget_record(fh);  // the program accesses data from where it stands now
  if (t->bytes % fh->etype_size() != 0)
    return file_error(fh, fn, MPI_ERR_TYPE,
                      std::to_string(t->count) + " elements of " + t->dt->name() + " are " + std::to_string(t->bytes) +
                          " bytes in the file, not a whole number of the view's etype (" +
                          fh->view_as_set().etype()->name() + ", " + std::to_string(fh->etype_size()) +
                          " bytes there)");
  const lz::rt::datarep::Registered* reg = registered(fh);
  if (reg != nullptr && t->bytes != t->native_bytes && (t->write ? reg->write : reg->read) == nullptr)
    return file_error(fh, fn, MPI_ERR_CONVERSION,
                      "representation \"" + fh->datarep + "\" gives " + t->dt->name() +
                          " another size in the file than in memory but has no " + (t->write ? "write" : "read") +
                          " conversion function (MPI_CONVERSION_FN_NULL) to convert it");
  return MPI_SUCCESS;
}

char* FileBytes::for_write(Transfer* t) {
  MPI_File fh = t->fh;
  const lz::dt::Datatype& dt = *t->dt;
  char* direct = static_cast<char*>(t->buf) + dt.true_lb();
  if (is_native(fh) && dt.is_contiguous()) return direct;
  tmp_.reset(new char[t->bytes]);  // the file's bytes
  if (const lz::rt::datarep::Registered* reg = registered(fh); reg != nullptr && reg->write != nullptr) {
    if (int rc = reg->write(t->buf, t->dt, t->count, tmp_.get(), 0, reg->extra_state)) {
      t->error = MPI_ERR_CONVERSION;
      t->error_text = "the write conversion of \"" + fh->datarep + "\" returned " + std::to_string(rc);
      return nullptr;
    }
  } else if (fh->datarep == "external32") {
    std::unique_ptr<char[]> packed(new char[t->native_bytes]);
    dt.pack(t->buf, t->count, packed.get());
    lz::rt::datarep::external32_convert(dt, t->count, reinterpret_cast<unsigned char*>(packed.get()),
                                        reinterpret_cast<unsigned char*>(tmp_.get()), true);
  } else {
    dt.pack(t->buf, t->count, tmp_.get());
  }
  return tmp_.get();
}

char* FileBytes::for_read(Transfer* t) {
  const lz::dt::Datatype& dt = *t->dt;
  if (is_native(t->fh) && dt.is_contiguous()) return static_cast<char*>(t->buf) + dt.true_lb();
  tmp_.reset(new char[t->bytes]);
  return tmp_.get();
}

void FileBytes::deliver(Transfer* t, uint64_t got) {
  MPI_File fh = t->fh;
  const lz::dt::Datatype& dt = *t->dt;
  // Whole etypes only: a partial one at the end of the file is not data.
  t->done = got - got % fh->etype_size();
  if (!tmp_) return;  // read in place
  // A representation converts whole elements; the rest of a partial
  // element is unpacked natively.
  const uint64_t element = t->count > 0 ? t->bytes / static_cast<uint64_t>(t->count) : 0;
  const int whole = static_cast<int>(element ? t->done / element : 0);
  if (const lz::rt::datarep::Registered* reg = registered(fh); reg != nullptr && reg->read != nullptr) {
    if (int rc = reg->read(t->buf, t->dt, whole, tmp_.get(), 0, reg->extra_state)) {
      t->error = MPI_ERR_CONVERSION;
      t->error_text = "the read conversion of \"" + fh->datarep + "\" returned " + std::to_string(rc);
    }
    return;
  }
  if (fh->datarep == "external32") {
    std::unique_ptr<char[]> native_bytes(new char[t->native_bytes]);
    lz::rt::datarep::external32_convert(dt, whole, reinterpret_cast<unsigned char*>(tmp_.get()),
                                        reinterpret_cast<unsigned char*>(native_bytes.get()), false);
    dt.unpack(native_bytes.get(), static_cast<size_t>(whole) * dt.size(), t->count, t->buf);
    return;
  }
  dt.unpack(tmp_.get(), t->done, t->count, t->buf);
}

void run(Transfer* t) {
  MPI_File fh = t->fh;
  if (t->bytes == 0) return;
  std::vector<lz::io::Segment> segs;
  fh->view.map(t->start, t->bytes, &segs);
  FileBytes fb;
  int err = 0;
  if (t->write) {
    char* bytes = fb.for_write(t);
    if (bytes == nullptr) return;
    auto n = lz::io::write_segments(fh->fd, segs, bytes, fh->access, &err);
    if (!n.ok()) {
      t->error = class_of_errno(err);
      t->error_text = n.status().message();
      return;
    }
    t->done = *n;
    return;
  }
  char* bytes = fb.for_read(t);
  auto n = lz::io::read_segments(fh->fd, segs, bytes, fh->access, &err);
  if (!n.ok()) {
    t->error = class_of_errno(err);
    t->error_text = n.status().message();
    return;
  }
  fb.deliver(t, *n);
}

void fill_status(const Transfer& t, MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE || st == nullptr) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->lz_cancelled = 0;
  uint64_t bytes = t.done;
  if (t.bytes != t.native_bytes && t.bytes > 0)  // whole elements: what the conversion delivered
    bytes = t.done == t.bytes ? t.native_bytes : t.done / (t.bytes / static_cast<uint64_t>(t.count)) * t.dt->size();
  st->lz_bytes = static_cast<MPI_Count>(bytes);
}

int finish(const char* fn, const Transfer& t, MPI_Status* st) {
  fill_status(t, st);
  if (t.error != MPI_SUCCESS) return file_error(t.fh, fn, t.error, t.error_text);
  return MPI_SUCCESS;
}

}  // namespace lz::rt::io
