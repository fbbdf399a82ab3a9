#include "sealed_module.h"

#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

namespace sealed {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[] = "LZSEALED1\n";
constexpr size_t kMagicBytes = sizeof(kMagic) - 1;

lz::StatusOr<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return lz::IoError("cannot read " + path + ": " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `bytes` to `path` whole or not at all: a temporary beside it,
// fsynced, then renamed over it.
lz::Status write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".sealing";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return lz::IoError("cannot create " + tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return lz::IoError("cannot write " + tmp + ": " + std::strerror(e));
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return lz::IoError("cannot sync " + tmp + ": " + std::strerror(errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return lz::IoError("cannot rename " + tmp + ": " + std::strerror(errno));
  return lz::Status::Ok();
}

std::string seal(const std::string& plain, const Key& key) {
  std::string out(kMagicBytes + crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + plain.size(), '\0');
  std::memcpy(out.data(), kMagic, kMagicBytes);
  auto* nonce = reinterpret_cast<unsigned char*>(out.data() + kMagicBytes);
  randombytes_buf(nonce, crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(nonce + crypto_secretbox_NONCEBYTES, reinterpret_cast<const unsigned char*>(plain.data()),
                        plain.size(), nonce, key.data());
  return out;
}

lz::StatusOr<std::string> unseal(const std::string& sealed, const Key& key, const std::string& path) {
  const size_t head = kMagicBytes + crypto_secretbox_NONCEBYTES;
  if (sealed.size() < head + crypto_secretbox_MACBYTES || sealed.compare(0, kMagicBytes, kMagic) != 0)
    return lz::DataLoss(path + " is not a sealed file (cr/sealed wrote none there, or it was truncated)");
  std::string plain(sealed.size() - head - crypto_secretbox_MACBYTES, '\0');
  const auto* nonce = reinterpret_cast<const unsigned char*>(sealed.data() + kMagicBytes);
  if (crypto_secretbox_open_easy(reinterpret_cast<unsigned char*>(plain.data()), nonce + crypto_secretbox_NONCEBYTES,
                                 sealed.size() - head, nonce, key.data()) != 0)
    return lz::DataLoss(path + " does not open under cr_sealed_key_file's key: tampered, damaged, or sealed with "
                               "another key");
  return plain;
}

// Scratch directories of unsealed snapshots are named
// lz-sealed.<pid namespace>.<pid>.XXXXXX. A rank killed while it held one
// (another rank's failed restore stops the job) leaves plaintext behind:
// the next open removes those of this namespace whose process is gone.
std::string scratch_prefix(ino_t ns, pid_t pid) {
  return "lz-sealed." + std::to_string(ns) + "." + std::to_string(pid) + ".";
}

ino_t pid_namespace() {
  struct stat st {};
  return ::stat("/proc/self/ns/pid", &st) == 0 ? st.st_ino : 0;
}

void remove_stale_scratch(const fs::path& tmp, ino_t ns) {
  const std::string mine = "lz-sealed." + std::to_string(ns) + ".";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec)) {
    const std::string name = e.path().filename().string();
    if (ns == 0 || name.rfind(mine, 0) != 0) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + mine.size()));
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to know
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    fs::remove_all(e.path(), ec);
  }
}

}  // namespace

class SealedModule::Opened {
 public:
  explicit Opened(std::string dir) : dir_(std::move(dir)) {}
  ~Opened() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

SealedModule::~SealedModule() { sodium_memzero(key_.data(), key_.size()); }

lz::StatusOr<uint64_t> SealedModule::save_variables(const lz::cr::AppSave& save) {
  // Only what cr/app writes is sealed: the rank directory also holds files of
  // others (crcp/c3's message log), which they read back themselves.
  std::set<std::string> before;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(save.dir, ec)) before.insert(e.path().filename().string());
  LZ_RETURN_IF_ERROR(inner_->save_variables(save).status());
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(save.dir, ec)) {
    if (!e.is_regular_file() || before.count(e.path().filename().string())) continue;
    const std::string path = e.path().string();
    LZ_ASSIGN_OR_RETURN(std::string plain, read_file(path));
    std::string sealed_bytes = seal(plain, key_);
    sodium_memzero(plain.data(), plain.size());
    LZ_RETURN_IF_ERROR(write_file_atomically(path, sealed_bytes));
    total += sealed_bytes.size();
  }
  if (ec) return lz::IoError("cannot list " + save.dir + ": " + ec.message());
  return total;
}

lz::StatusOr<std::unique_ptr<SealedModule::Opened>> SealedModule::open_snapshot(const std::string& snapshot_dir) const {
  const fs::path tmp = fs::temp_directory_path();
  const ino_t ns = pid_namespace();
  remove_stale_scratch(tmp, ns);
  std::string tmpl = (tmp / (scratch_prefix(ns, ::getpid()) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) return lz::IoError("cannot make a scratch directory: " + std::string(std::strerror(errno)));
  auto opened = std::make_unique<Opened>(tmpl);
  std::error_code ec;
  for (const auto& rank_dir : fs::directory_iterator(snapshot_dir, ec)) {
    const std::string name = rank_dir.path().filename().string();
    const fs::path dst = fs::path(opened->dir()) / name;
    if (!rank_dir.is_directory() || name.rfind("rank.", 0) != 0) {
      fs::create_symlink(rank_dir.path(), dst, ec);  // what cr/app does not seal (the line's records)
      continue;
    }
    fs::create_directory(dst, ec);
    for (const auto& f : fs::directory_iterator(rank_dir.path(), ec)) {
      if (!f.is_regular_file()) continue;
      LZ_ASSIGN_OR_RETURN(std::string bytes, read_file(f.path().string()));
      // Another component's file (not sealed, not cr/app's): as it is.
      if (bytes.compare(0, kMagicBytes, kMagic) != 0 && f.path().extension() != ".lzck") {
        fs::create_symlink(f.path(), dst / f.path().filename(), ec);
        continue;
      }
      LZ_ASSIGN_OR_RETURN(std::string plain, unseal(bytes, key_, f.path().string()));
      LZ_RETURN_IF_ERROR(write_file_atomically((dst / f.path().filename()).string(), plain));
      sodium_memzero(plain.data(), plain.size());
    }
  }
  if (ec) return lz::IoError("cannot read snapshot " + snapshot_dir + ": " + ec.message());
  return opened;
}

lz::StatusOr<lz::cr::AppSnapshotInfo> SealedModule::describe_snapshot(const std::string& snapshot_dir) {
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<Opened> opened, open_snapshot(snapshot_dir));
  return inner_->describe_snapshot(opened->dir());
}

lz::Status SealedModule::load_variables(const lz::cr::AppLoad& load) {
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<Opened> opened, open_snapshot(load.snapshot_dir));
  lz::cr::AppLoad in = load;
  in.snapshot_dir = opened->dir();
  return inner_->load_variables(in);
}

lz::StatusOr<Key> read_key_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return lz::NotFound("cr_sealed_key_file " + path + ": " + std::strerror(errno));
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return lz::PermissionDenied("cr_sealed_key_file " + path + " is readable by others (chmod 600 it)");
  LZ_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  if (bytes.size() != kKeyBytes)
    return lz::InvalidArgument("cr_sealed_key_file " + path + " holds " + std::to_string(bytes.size()) +
                               " bytes; a key is exactly " + std::to_string(kKeyBytes) + " (head -c 32 /dev/urandom)");
  Key k;
  std::memcpy(k.data(), bytes.data(), kKeyBytes);
  sodium_memzero(bytes.data(), bytes.size());
  return k;
}

}  // namespace sealed
