#include "launcher/host_list.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <map>

#include "lazarus/net.h"
#include "lazarus/strings.h"
#include "oob/socket.h"

namespace lz::launcher {
namespace {

StatusOr<int> parse_slots(std::string_view text, const std::string& where) {
  if (text.empty() || text.size() > 6) return InvalidArgument(where + ": bad slot count '" + std::string(text) + "'");
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return InvalidArgument(where + ": bad slot count '" + std::string(text) + "'");
    v = v * 10 + (c - '0');
  }
  if (v < 1) return InvalidArgument(where + ": slot count must be at least 1");
  return v;
}

// Merges repeated names (Open MPI: "--host a,a" is two slots on a).
std::vector<HostEntry> merge(std::vector<HostEntry> in) {
  std::vector<HostEntry> out;
  for (auto& h : in) {
    bool found = false;
    for (auto& o : out)
      if (o.name == h.name) {
        o.slots += h.slots;
        found = true;
      }
    if (!found) out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

std::string local_hostname() {
  char host[HOST_NAME_MAX + 1] = "localhost";
  gethostname(host, sizeof host);
  host[HOST_NAME_MAX] = '\0';
  return host;
}

std::vector<HostEntry> default_hosts() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return {HostEntry{local_hostname(), n > 0 ? static_cast<int>(n) : 1}};
}

StatusOr<std::vector<HostEntry>> parse_host_option(std::string_view text) {
  std::vector<HostEntry> hosts;
  for (const std::string& item : str::split(text, ',')) {
    HostEntry h;
    size_t colon = item.rfind(':');
    // "[v6]:n" and bare IPv6 addresses contain colons too.
    if (colon != std::string::npos && item.find(':') == colon) {
      h.name = item.substr(0, colon);
      LZ_ASSIGN_OR_RETURN(h.slots, parse_slots(std::string_view(item).substr(colon + 1), "--host " + item));
    } else {
      h.name = item;
    }
    if (h.name.empty()) return InvalidArgument("--host: empty host name in '" + std::string(text) + "'");
    hosts.push_back(std::move(h));
  }
  if (hosts.empty()) return InvalidArgument("--host: no hosts given");
  return merge(std::move(hosts));
}

StatusOr<std::vector<HostEntry>> parse_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read hostfile '" + path + "'");
  std::vector<HostEntry> hosts;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string where = path + ":" + std::to_string(lineno);
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::vector<std::string> words;
    for (const auto& w : str::split(line, ' '))
      for (const auto& x : str::split(w, '\t')) words.push_back(x);
    if (words.empty()) continue;
    HostEntry h{words[0], 1};
    // Hydra's (and MPICH's) form: "host:N".
    if (size_t colon = h.name.rfind(':'); colon != std::string::npos && h.name.find(':') == colon) {
      LZ_ASSIGN_OR_RETURN(h.slots, parse_slots(std::string_view(h.name).substr(colon + 1), where));
      h.name.resize(colon);
    }
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w.rfind("slots=", 0) == 0) {
        LZ_ASSIGN_OR_RETURN(h.slots, parse_slots(std::string_view(w).substr(6), where));
      } else if (w.rfind("max_slots=", 0) == 0 || w.rfind("max-slots=", 0) == 0) {
        // Accepted for Open MPI compatibility; oversubscription is governed by
        // --oversubscribe / --nooversubscribe.
      } else {
        return InvalidArgument(where + ": unknown hostfile attribute '" + w + "' (expected slots=N)");
      }
    }
    hosts.push_back(std::move(h));
  }
  if (hosts.empty()) return InvalidArgument("hostfile '" + path + "' names no hosts");
  return merge(std::move(hosts));
}

bool is_local_host(const std::string& name) {
  if (name == "localhost" || name == "127.0.0.1" || name == "::1") return true;
  const std::string self = local_hostname();
  if (name == self) return true;
  if (self.find('.') != std::string::npos && name == self.substr(0, self.find('.'))) return true;
  auto addr = oob::resolve(name, 0);
  if (!addr.ok()) return false;
  const std::string host = addr->host();
  if (host.rfind("127.", 0) == 0 || host == "::1") return true;
  auto itfs = local_interfaces();
  if (!itfs.ok()) return false;
  bool local = false;
  for (const NetInterface& i : *itfs) local = local || i.addr.host() == host;
  return local;
}

StatusOr<MapBy> parse_map_by(std::string_view text) {
  if (text == "slot") return MapBy::kSlot;
  if (text == "node") return MapBy::kNode;
  if (text == "core") return MapBy::kCore;
  if (text == "socket" || text == "package") return MapBy::kSocket;
  if (text == "hwthread") return MapBy::kHwthread;
  if (text == "numa") return MapBy::kNuma;
  if (text == "l3cache") return MapBy::kL3cache;
  return InvalidArgument("--map-by '" + std::string(text) +
                         "': expected slot, node, core, socket, hwthread, numa, l3cache or ppr:N:node|socket");
}

StatusOr<std::vector<Placement>> place_ranks(const std::vector<HostEntry>& hosts, int np, bool oversubscribe,
                                             MapBy map) {
  if (hosts.empty()) return InvalidArgument("no hosts to place ranks on");
  if (np < 1) return InvalidArgument("the number of ranks must be at least 1");
  int total = 0;
  for (const auto& h : hosts) total += h.slots;
  if (np > total && !oversubscribe)
    return InvalidArgument(std::to_string(np) + " ranks requested but the hosts have " + std::to_string(total) +
                           " slots (--nooversubscribe was given; drop it to run more ranks than slots)");
  // All names of this machine share one node id: ranks on them share memory.
  std::vector<uint64_t> node(hosts.size());
  std::map<std::string, uint64_t> ids;
  for (size_t i = 0; i < hosts.size(); ++i) {
    std::string key = is_local_host(hosts[i].name) ? std::string("\0local", 6) : hosts[i].name;
    auto it = ids.emplace(key, ids.size()).first;
    node[i] = it->second;
  }
  std::vector<Placement> out;
  std::vector<int> used(hosts.size(), 0);
  auto room = [&] { return static_cast<int>(out.size()) < np; };
  if (map == MapBy::kNode) {
    for (bool placed = true; placed && room();) {
      placed = false;
      for (size_t i = 0; i < hosts.size() && room(); ++i)
        if (used[i] < hosts[i].slots) {
          out.push_back({hosts[i].name, node[i], 0, 0, {}});
          ++used[i];
          placed = true;
        }
    }
  } else {
    for (size_t i = 0; i < hosts.size() && room(); ++i)
      for (int s = 0; s < hosts[i].slots && room(); ++s) {
        out.push_back({hosts[i].name, node[i], 0, 0, {}});
        ++used[i];
      }
  }
  for (size_t i = 0; room(); i = (i + 1) % hosts.size()) {
    out.push_back({hosts[i].name, node[i], 0, 0, {}});
    ++used[i];
  }
  std::map<uint64_t, int> per_node;
  for (auto& p : out) p.local_rank = per_node[p.node_id]++;
  for (auto& p : out) p.local_size = per_node[p.node_id];
  return out;
}

}  // namespace lz::launcher
