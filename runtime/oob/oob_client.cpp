#include "oob/oob_client.h"

namespace lz::oob {

StatusOr<std::unique_ptr<OobClient>> OobClient::connect(const std::string& address, const std::string& job_id,
                                                        uint32_t rank, std::string_view secret, uint32_t flags,
                                                        Deadline deadline) {
  LZ_ASSIGN_OR_RETURN(auto hp, split_host_port(address));
  auto fd = connect_tcp(hp.first, hp.second, deadline);
  if (!fd.ok()) return fd.status().with_context("OOB connection to launcher at " + address);
  std::unique_ptr<OobClient> c(new OobClient(std::move(*fd), address));
  auto ctx = [&](const Status& s) { return s.with_context("OOB handshake with launcher at " + address); };

  auto hello_frame = c->receive(deadline);
  if (!hello_frame.ok()) return ctx(hello_frame.status());
  if (hello_frame->type != static_cast<uint16_t>(MsgType::kHello))
    return ctx(ProtocolError("expected HELLO, got " + msg_type_name(hello_frame->type)));
  HelloMsg hello;
  if (Status s = decode_hello(hello_frame->payload, &hello); !s.ok()) return ctx(s);
  if (hello.job_id != job_id)
    return ctx(PermissionDenied("launcher runs job '" + hello.job_id + "', this rank belongs to job '" + job_id + "'"));

  AuthMsg a;
  a.rank = rank;
  a.flags = flags;
  const bool helper = (flags & kAuthHelper) != 0;
  a.mac = auth::mac(secret, helper ? kHelperAuthContext : "oob", hello.nonce, auth_id(job_id, rank));
  if (Status s = c->send(MsgType::kAuth, encode_auth(a)); !s.ok()) return ctx(s);

  auto reply = c->receive(deadline);
  if (!reply.ok()) {
    if (reply.status().code() == Code::kAborted)
      return ctx(PermissionDenied("the launcher closed the connection (authentication refused?)"));
    return ctx(reply.status());
  }
  if (reply->type == static_cast<uint16_t>(MsgType::kError)) {
    ErrorMsg e;
    if (Status s = decode_error(reply->payload, &e); !s.ok()) return ctx(s);
    return ctx(PermissionDenied("launcher refused the rank: " + e.reason));
  }
  if (reply->type != static_cast<uint16_t>(MsgType::kWelcome))
    return ctx(ProtocolError("expected WELCOME, got " + msg_type_name(reply->type)));
  if (Status s = decode_welcome(reply->payload, &c->welcome_); !s.ok()) return ctx(s);
  if (!helper && rank >= c->welcome_.size)
    return ctx(ProtocolError("rank " + std::to_string(rank) + " outside the job's size " +
                             std::to_string(c->welcome_.size)));
  return c;
}

Status OobClient::send(MsgType type, std::string_view payload) {
  if (payload.size() > kMaxPayload)
    return InvalidArgument(msg_type_name(static_cast<uint16_t>(type)) + " message of " +
                           std::to_string(payload.size()) + " bytes exceeds the OOB limit");
  std::string frame = encode_frame(type, payload);
  return write_all(fd_.get(), frame.data(), frame.size(), kNoDeadline);
}

StatusOr<Frame> OobClient::receive(Deadline deadline) {
  unsigned char hdr[kHeaderBytes];
  LZ_RETURN_IF_ERROR(read_exact(fd_.get(), hdr, sizeof hdr, deadline));
  Frame f;
  uint32_t len = 0;
  LZ_RETURN_IF_ERROR(parse_header(hdr, &f.type, &len));
  f.payload.resize(len);
  LZ_RETURN_IF_ERROR(read_exact(fd_.get(), f.payload.data(), len, deadline));
  return f;
}

}  // namespace lz::oob
