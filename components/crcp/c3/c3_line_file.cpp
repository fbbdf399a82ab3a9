#include "c3_line_file.h"

#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"

namespace lz::crcp::c3 {
namespace {

using appfmt::Scalar;

Status add_u64(appfmt::Writer& w, const std::string& name, std::vector<uint64_t> v, uint64_t* total) {
  appfmt::Variable var{name, {{Scalar::kUInt64, 1}}, v.size(), {}};
  *total += v.size() * 8;
  return w.add(var, v.data(), v.size() * 8);
}

StatusOr<std::vector<uint64_t>> read_u64(const appfmt::Reader& r, const std::string& name, size_t width) {
  const appfmt::VariableInfo* info = r.find(name);
  if (info == nullptr) return DataLoss(r.path() + ": record '" + name + "' is missing");
  if (info->var.signature != appfmt::Signature{{Scalar::kUInt64, 1}} || info->var.count == 0)
    return DataLoss(r.path() + ": record '" + name + "' is not a uint64 array");
  std::vector<uint64_t> v(info->var.count);
  LZ_RETURN_IF_ERROR(r.read(name, v.data(), v.size() * 8));
  if (v[0] > (v.size() - 1) / width || v.size() != 1 + v[0] * width)
    return DataLoss(r.path() + ": record '" + name + "' says " + std::to_string(v[0]) + " entries but holds " +
                    std::to_string(v.size() - 1) + " values");
  return v;
}

}  // namespace

StatusOr<uint64_t> write_line_file(const std::string& path, const LineState& s, const appfmt::Header& header) {
  LZ_ASSIGN_OR_RETURN(appfmt::Writer w, appfmt::Writer::create(path, header));
  uint64_t total = 0;
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.epoch", {1, s.epoch}, &total));
  std::vector<uint64_t> v{s.sent.size()};
  v.insert(v.end(), s.sent.begin(), s.sent.end());
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.sent", std::move(v), &total));
  v = {s.matched.size()};
  for (const auto& m : s.matched) v.insert(v.end(), m.begin(), m.end());
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.matched", std::move(v), &total));
  v = {s.early.size()};
  for (const auto& [a, b] : s.early) v.insert(v.end(), {a, b});
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.early", std::move(v), &total));
  v = {s.wild.size()};
  for (const auto& [a, b] : s.wild) v.insert(v.end(), {a, b});
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.wild", std::move(v), &total));
  v = {s.late.size()};
  std::string payload(1, '\0');  // never empty: a leading pad byte
  for (const auto& r : s.late) {
    v.insert(v.end(), {static_cast<uint64_t>(r.m.world_src), r.m.context, static_cast<uint64_t>(r.m.src),
                       static_cast<uint64_t>(static_cast<int64_t>(r.m.tag)), r.m.stamp, r.payload.size()});
    payload += r.payload;
  }
  LZ_RETURN_IF_ERROR(add_u64(w, "c3.late", std::move(v), &total));
  appfmt::Variable p{"c3.payload", {{Scalar::kByte, 1}}, payload.size(), {}};
  LZ_RETURN_IF_ERROR(w.add(p, payload.data(), payload.size()));
  total += payload.size();
  LZ_RETURN_IF_ERROR(w.finish());
  return total;
}

StatusOr<LineState> read_line_file(const std::string& path) {
  LZ_ASSIGN_OR_RETURN(appfmt::Reader r, appfmt::Reader::open(path));
  LineState s;
  LZ_ASSIGN_OR_RETURN(auto epoch, read_u64(r, "c3.epoch", 1));
  if (epoch[0] != 1) return DataLoss(path + ": record 'c3.epoch' holds no epoch");
  s.epoch = static_cast<uint32_t>(epoch[1]);
  LZ_ASSIGN_OR_RETURN(auto sent, read_u64(r, "c3.sent", 1));
  s.sent.assign(sent.begin() + 1, sent.end());
  LZ_ASSIGN_OR_RETURN(auto matched, read_u64(r, "c3.matched", 3));
  for (size_t i = 1; i < matched.size(); i += 3) s.matched.push_back({matched[i], matched[i + 1], matched[i + 2]});
  LZ_ASSIGN_OR_RETURN(auto early, read_u64(r, "c3.early", 2));
  for (size_t i = 1; i < early.size(); i += 2) s.early.push_back({early[i], early[i + 1]});
  LZ_ASSIGN_OR_RETURN(auto wild, read_u64(r, "c3.wild", 2));
  for (size_t i = 1; i < wild.size(); i += 2) s.wild.push_back({wild[i], wild[i + 1]});
  LZ_ASSIGN_OR_RETURN(auto late, read_u64(r, "c3.late", 6));
  const appfmt::VariableInfo* pi = r.find("c3.payload");
  if (pi == nullptr) return DataLoss(path + ": record 'c3.payload' is missing");
  std::string payload(pi->raw_bytes, '\0');
  LZ_RETURN_IF_ERROR(r.read("c3.payload", payload.data(), payload.size()));
  size_t at = 1;
  for (size_t i = 1; i < late.size(); i += 6) {
    Replayed x;
    x.m.world_src = static_cast<int>(late[i]);
    x.m.context = static_cast<uint32_t>(late[i + 1]);
    x.m.src = static_cast<int>(late[i + 2]);
    x.m.tag = static_cast<int>(static_cast<int64_t>(late[i + 3]));
    x.m.stamp = late[i + 4];
    const uint64_t n = late[i + 5];
    if (n > payload.size() - at) return DataLoss(path + ": late message " + std::to_string(s.late.size()) +
                                                 " runs past the end of 'c3.payload'");
    x.payload = payload.substr(at, n);
    at += n;
    s.late.push_back(std::move(x));
  }
  return s;
}

}  // namespace lz::crcp::c3
