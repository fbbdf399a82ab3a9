// The byte layout of an application-level snapshot file (writer.h describes
// it): header and index entries, encoded and decoded in one place so the
// writer and the reader cannot disagree. Internal to runtime/appfmt.
#pragma once

#include <cstdint>
#include <string>

#include "bytes.h"
#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/status.h"

namespace lz::appfmt {

inline constexpr char kMagic[8] = {'L', 'Z', 'A', 'P', 'C', 'K', '0', '1'};
inline constexpr char kEndMagic[8] = {'L', 'Z', 'A', 'P', 'E', 'N', 'D', '1'};
inline constexpr uint64_t kTrailerSize = 32;  // index offset, index length, index XXH3, end magic
inline constexpr uint32_t kFlagBigEndianWriter = 1;
inline constexpr uint8_t kEntryCompressed = 1;

uint64_t xxh3(const void* data, size_t n);

std::string encode_header(const Header& h, bool big_endian_writer, uint32_t version);
// Decodes the header at the start of `in`; sets *end to its length.
Status decode_header(const std::string& file, const char* p, size_t n, Header* h, uint64_t* end);

// `version`: the file's (kFormatVersionIncremental adds the base runs).
void encode_entry(ByteOut& out, const VariableInfo& v, uint32_t version);
bool decode_entry(ByteIn& in, VariableInfo* v, uint32_t version);
// The base files at the start of a version-2 index.
void encode_bases(ByteOut& out, const std::vector<BaseFile>& bases);
bool decode_bases(ByteIn& in, std::vector<BaseFile>* bases);

// Blocks of kBlockSize in `raw_bytes` (the last one may be short).
inline uint64_t block_count(uint64_t raw_bytes) { return (raw_bytes + kBlockSize - 1) / kBlockSize; }
inline bool bit(const std::vector<uint8_t>& map, uint64_t i) { return (map[i / 8] >> (i % 8)) & 1; }

}  // namespace lz::appfmt
