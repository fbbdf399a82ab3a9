// cr/criu's files.img rewrite (criu_files_image.h): the post-dump hook takes
// CRIU's size check of the files Lazarus records, and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "criu_files_image.h"

namespace lz::cr::criu {
namespace {

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void field_varint(std::string& out, uint32_t n, uint64_t v) {
  varint(out, (n << 3) | 0);
  varint(out, v);
}
void field_bytes(std::string& out, uint32_t n, const std::string& b) {
  varint(out, (n << 3) | 2);
  varint(out, b.size());
  out += b;
}
void le32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A RegFileEntry as CRIU writes it: id, flags, pos, fown, name, size, mode, build_id.
std::string reg(const std::string& name, bool with_size) {
  std::string r;
  field_varint(r, 1, 7);
  field_varint(r, 2, 0x8401);
  field_varint(r, 3, 1843);
  field_bytes(r, 5, std::string("\x08\x00", 2));
  field_bytes(r, 6, name);
  if (with_size) field_varint(r, 8, 1843);
  field_varint(r, 10, 0100644);
  if (with_size) {
    field_varint(r, 11, 0xdeadbeef);
    field_varint(r, 11, 0x12345678);
  }
  return r;
}
std::string entry(uint32_t type, uint32_t id, uint32_t field, const std::string& body) {
  std::string e;
  field_varint(e, 1, type);
  field_varint(e, 2, id);
  field_bytes(e, field, body);
  return e;
}
std::string image(const std::vector<std::string>& entries) {
  std::string img;
  le32(img, 0x54564319);
  le32(img, 0x56303138);
  for (const auto& e : entries) {
    le32(img, static_cast<uint32_t>(e.size()));
    img += e;
  }
  return img;
}

TEST(CriuFilesImage, DropsSizeAndBuildIdOfRecordedFilesOnly) {
  const std::string recorded = entry(1, 7, 3, reg("/tmp/log.0", true));
  const std::string other = entry(1, 8, 3, reg("/etc/hosts", true));
  const std::string pipe = entry(6, 9, 18, std::string("\x08\x09", 2));
  int changed = -1;
  auto out = drop_file_validation_in(image({recorded, other, pipe}), {"/tmp/log.0"}, &changed);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(changed, 1);
  EXPECT_EQ(*out, image({entry(1, 7, 3, reg("/tmp/log.0", false)), other, pipe}));
  // Nothing recorded: the image is unchanged.
  out = drop_file_validation_in(image({recorded, other, pipe}), {}, &changed);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(changed, 0);
  EXPECT_EQ(*out, image({recorded, other, pipe}));
}

TEST(CriuFilesImage, RefusesWhatIsNotAFilesImage) {
  int changed = 0;
  auto out = drop_file_validation_in("not an image at all", {"/a"}, &changed);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kDataLoss);
  std::string img = image({entry(1, 7, 3, reg("/a", true))});
  img.resize(img.size() - 3);  // cut inside the last entry
  out = drop_file_validation_in(img, {"/a"}, &changed);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("files.img"), std::string::npos) << out.status().message();
}

}  // namespace
}  // namespace lz::cr::criu
