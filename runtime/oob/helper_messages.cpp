#include "oob/helper_messages.h"

#include "oob/wire.h"

namespace lz::oob {
std::string encode_helper_start(const HelperStartMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.u32(m.flags);
  put_strings(w, m.argv);
  put_strings(w, m.env);
  w.str(m.cwd);
  w.u32(static_cast<uint32_t>(m.cpus.size()));
  for (uint32_t c : m.cpus) w.u32(c);
  return w.take();
}

Status decode_helper_start(std::string_view p, HelperStartMsg* out) {
  WireReader r(p);
  HelperStartMsg m;
  uint32_t ncpus = 0;
  if (!r.u32(&m.rank) || !r.u32(&m.flags) || !get_strings(r, &m.argv, kMaxArgs, kMaxArgBytes) ||
      !get_strings(r, &m.env, kMaxArgs, kMaxArgBytes) || !r.str(&m.cwd, kMaxPathBytes) || !r.u32(&ncpus) ||
      ncpus > kMaxCpus || r.remaining() / 4 < ncpus)
    return malformed("HELPER_START");
  m.cpus.resize(ncpus);
  for (auto& c : m.cpus)
    if (!r.u32(&c)) return malformed("HELPER_START");
  if (!r.at_end()) return malformed("HELPER_START");
  if (m.argv.empty()) return ProtocolError("HELPER_START without a program");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_helper_started(const HelperStartedMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.i32(m.pid);
  w.i32(m.error);
  w.str(m.reason);
  return w.take();
}

Status decode_helper_started(std::string_view p, HelperStartedMsg* out) {
  WireReader r(p);
  HelperStartedMsg m;
  if (!r.u32(&m.rank) || !r.i32(&m.pid) || !r.i32(&m.error) || !r.str(&m.reason, 64 * 1024) || !r.at_end())
    return malformed("HELPER_STARTED");
  if (m.error == 0 && m.pid <= 0) return ProtocolError("HELPER_STARTED with neither a pid nor an error");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_helper_signal(const HelperSignalMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.i32(m.signal);
  return w.take();
}

Status decode_helper_signal(std::string_view p, HelperSignalMsg* out) {
  WireReader r(p);
  HelperSignalMsg m;
  if (!r.u32(&m.rank) || !r.i32(&m.signal) || !r.at_end()) return malformed("HELPER_SIGNAL");
  if (m.signal <= 0 || m.signal >= 65) return ProtocolError("HELPER_SIGNAL with signal " + std::to_string(m.signal));
  *out = m;
  return Status::Ok();
}

std::string encode_helper_output(const HelperOutputMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.u8(m.stream);
  w.str(m.data);
  return w.take();
}

Status decode_helper_output(std::string_view p, HelperOutputMsg* out) {
  WireReader r(p);
  HelperOutputMsg m;
  if (!r.u32(&m.rank) || !r.u8(&m.stream) || !r.str(&m.data, kMaxOutputChunk) || !r.at_end())
    return malformed("HELPER_OUTPUT");
  if (m.stream != kHelperStdout && m.stream != kHelperStderr)
    return ProtocolError("HELPER_OUTPUT for stream " + std::to_string(m.stream));
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_helper_exit(const HelperExitMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.i32(m.wait_status);
  return w.take();
}

Status decode_helper_exit(std::string_view p, HelperExitMsg* out) {
  WireReader r(p);
  HelperExitMsg m;
  if (!r.u32(&m.rank) || !r.i32(&m.wait_status) || !r.at_end()) return malformed("HELPER_EXIT");
  *out = m;
  return Status::Ok();
}

std::string encode_helper_restore(const HelperRestoreMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.u32(m.flags);
  w.u64(m.seq);
  w.str(m.dir);
  put_strings(w, m.params);
  put_strings(w, m.env);
  return w.take();
}

Status decode_helper_restore(std::string_view p, HelperRestoreMsg* out) {
  WireReader r(p);
  HelperRestoreMsg m;
  if (!r.u32(&m.rank) || !r.u32(&m.flags) || !r.u64(&m.seq) || !r.str(&m.dir, kMaxPathBytes) ||
      !get_strings(r, &m.params, kMaxArgs, kMaxArgBytes) || !get_strings(r, &m.env, kMaxArgs, kMaxArgBytes) ||
      !r.at_end())
    return malformed("HELPER_RESTORE");
  if (m.dir.empty()) return ProtocolError("HELPER_RESTORE without an image directory");
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lz::oob
