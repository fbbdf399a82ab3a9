#include "criu_files_image.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "lazarus/write_file_at.h"

namespace lz::cr::criu {
namespace {

constexpr uint32_t kImgCommonMagic = 0x54564319;
constexpr uint32_t kFilesMagic = 0x56303138;
constexpr uint32_t kFileEntryReg = 3;
constexpr uint32_t kRegName = 6;
// size, build_id, checksum, checksum_config, checksum_parameter
constexpr uint32_t kRegValidation[] = {8, 11, 12, 13, 14};

uint32_t le32(std::string_view s, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(s[at])) |
         static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(s[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3])) << 24;
}

void put_le32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool read_varint(std::string_view s, size_t& at, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[at++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// One field of a message: its number, wire type, the whole field's bytes and,
// for a length-delimited one, its payload.
struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  std::string_view bytes, payload;
};

bool next_field(std::string_view msg, size_t& at, Field& f) {
  const size_t start = at;
  uint64_t key = 0;
  if (!read_varint(msg, at, key)) return false;
  f.number = static_cast<uint32_t>(key >> 3);
  f.wire = static_cast<uint32_t>(key & 7);
  uint64_t v = 0;
  switch (f.wire) {
    case 0:
      if (!read_varint(msg, at, v)) return false;
      break;
    case 1:
      if (msg.size() - at < 8) return false;
      at += 8;
      break;
    case 2:
      if (!read_varint(msg, at, v) || v > msg.size() - at) return false;
      f.payload = msg.substr(at, v);
      at += v;
      break;
    case 5:
      if (msg.size() - at < 4) return false;
      at += 4;
      break;
    default:
      return false;
  }
  f.bytes = msg.substr(start, at - start);
  return true;
}

bool is_validation(uint32_t number) {
  for (uint32_t n : kRegValidation)
    if (n == number) return true;
  return false;
}

// The RegFileEntry without its validation fields when its name is one of
// `paths`; nullopt-like empty `out` and false when it stays.
bool strip_reg(std::string_view reg, const std::set<std::string>& paths, std::string& out, bool& ok) {
  ok = true;
  std::string_view name;
  bool has_validation = false;
  Field f;
  for (size_t at = 0; at < reg.size();) {
    if (!next_field(reg, at, f)) {
      ok = false;
      return false;
    }
    if (f.number == kRegName && f.wire == 2) name = f.payload;
    if (is_validation(f.number)) has_validation = true;
  }
  if (!has_validation || paths.count(std::string(name)) == 0) return false;
  out.clear();
  for (size_t at = 0; at < reg.size();) {
    next_field(reg, at, f);
    if (!is_validation(f.number)) out.append(f.bytes);
  }
  return true;
}

}  // namespace

StatusOr<std::string> drop_file_validation_in(std::string_view img, const std::set<std::string>& paths, int* changed) {
  *changed = 0;
  if (img.size() < 8 || le32(img, 0) != kImgCommonMagic || le32(img, 4) != kFilesMagic)
    return DataLoss(std::string(kFilesImage) + " is not a CRIU files image (wrong magic)");
  std::string out(img.substr(0, 8));
  for (size_t at = 8; at < img.size();) {
    if (img.size() - at < 4) return DataLoss(std::string(kFilesImage) + ": truncated entry length");
    const uint32_t len = le32(img, at);
    at += 4;
    if (len > img.size() - at) return DataLoss(std::string(kFilesImage) + ": entry runs past the end");
    const std::string_view entry = img.substr(at, len);
    at += len;
    std::string rebuilt;
    bool touched = false;
    Field f;
    for (size_t p = 0; p < entry.size();) {
      if (!next_field(entry, p, f)) return DataLoss(std::string(kFilesImage) + ": malformed entry");
      std::string reg;
      bool ok = true;
      if (f.number == kFileEntryReg && f.wire == 2 && strip_reg(f.payload, paths, reg, ok)) {
        put_varint(rebuilt, (kFileEntryReg << 3) | 2);
        put_varint(rebuilt, reg.size());
        rebuilt += reg;
        touched = true;
      } else {
        if (!ok) return DataLoss(std::string(kFilesImage) + ": malformed regular-file entry");
        rebuilt.append(f.bytes);
      }
    }
    if (touched) ++*changed;
    put_le32(out, static_cast<uint32_t>(rebuilt.size()));
    out += rebuilt;
  }
  return out;
}

StatusOr<int> drop_file_validation(int dir_fd, const std::set<std::string>& paths) {
  int fd = openat(dir_fd, kFilesImage, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;  // a process without files of that kind
    return ErrnoError(std::string("cannot open ") + kFilesImage, errno);
  }
  std::string img;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return ErrnoError(std::string("cannot read ") + kFilesImage, err);
    }
    if (n == 0) break;
    img.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  int changed = 0;
  LZ_ASSIGN_OR_RETURN(std::string out, drop_file_validation_in(img, paths, &changed));
  if (changed == 0) return 0;
  LZ_RETURN_IF_ERROR(write_file_at(dir_fd, kFilesImage, out));
  return changed;
}

}  // namespace lz::cr::criu
