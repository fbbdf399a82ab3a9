// The PMI-2 wire protocol (the client's side), as the process manager
// speaks it over the inherited socket PMI_FD (Slurm's `srun --mpi=pmi2`,
// MPICH's Hydra): one PMI-1 style line to agree on version 2, then
// commands framed by a 6-character decimal length and written as
// `cmd=<name>;key=value;...;`. Values here never hold ';' (Slurm's server
// does not unescape ";;"): Pmi2Bootstrap hex-encodes what it stores.
//
//   std::string frame = pmi2::command("kvs-get", {{"key", "3/lz.host"}});
//   auto reply = pmi2::parse(body);  // {"cmd": "kvs-get-response", "rc": "0", ...}
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lazarus/status.h"

namespace lz::rt::pmi2 {

// The first line a client sends, before any framed command.
inline constexpr std::string_view kInitLine = "cmd=init pmi_version=2 pmi_subversion=0\n";

// A framed command: the 6-character length, then cmd=<name>; and each pair.
std::string command(std::string_view name, const std::vector<std::pair<std::string, std::string>>& pairs);

// The pairs of a command or response body ("cmd=...;rc=0;..."); a
// body that is not `key=value;` pairs is kDataLoss naming it.
StatusOr<std::map<std::string, std::string>> parse(std::string_view body);

// PMI_process_mapping, "(vector,(start,nodes,ranks per node),...)": the
// node index of each of `size` ranks, placed in block order; a mapping of
// fewer ranks repeats (srun -m cyclic). kInvalidArgument naming the text
// when it is not that form or maps more than `size` ranks.
StatusOr<std::vector<int>> node_of_rank(std::string_view mapping, int size);

// Hex, since values travel as text without ';'.
std::string to_hex(std::string_view bytes);
StatusOr<std::string> from_hex(std::string_view hex);

}  // namespace lz::rt::pmi2
