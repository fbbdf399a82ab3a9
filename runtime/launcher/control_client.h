// The client side of a job's control socket (control_server.h): connect,
// send one request line, read answer lines.
//
//   LZ_ASSIGN_OR_RETURN(oob::Fd fd, connect_control(job.control_socket));
//   LZ_RETURN_IF_ERROR(send_control_line(fd.get(), R"({"op":"checkpoint"})"));
//   LZ_ASSIGN_OR_RETURN(std::string answer, read_control_line(fd.get(), &buffer, oob::kNoDeadline));
#pragma once

#include <string>

#include "lazarus/status.h"
#include "oob/socket.h"

namespace lz::launcher {

StatusOr<oob::Fd> connect_control(const std::string& path);
Status send_control_line(int fd, const std::string& line);
// The next line (without its newline); kAborted when the launcher closed the
// connection first, kTimeout at `deadline`. `buffer` keeps bytes read past it.
StatusOr<std::string> read_control_line(int fd, std::string* buffer, oob::Deadline deadline);

}  // namespace lz::launcher
