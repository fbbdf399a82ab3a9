#include "launcher/slurm_allocation.h"

#include <cstdlib>

namespace lz::launcher {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

int to_int(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// Splits at the commas outside brackets.
StatusOr<std::vector<std::string_view>> split_top(std::string_view expr) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    const char c = i < expr.size() ? expr[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) break;
    if (c == ',' && depth == 0) {
      if (i > start) out.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return InvalidArgument("unbalanced brackets in the hostlist '" + std::string(expr) + "'");
  return out;
}

// One name with brackets: the first bracket's items, each followed by the
// expansions of the rest.
Status expand_name(std::string_view name, std::vector<std::string>* out) {
  const size_t open = name.find('[');
  if (open == std::string_view::npos) {
    if (name.find(']') != std::string_view::npos) return InvalidArgument("stray ']' in '" + std::string(name) + "'");
    out->emplace_back(name);
    return Status::Ok();
  }
  const size_t close = name.find(']', open);
  if (close == std::string_view::npos) return InvalidArgument("unclosed '[' in '" + std::string(name) + "'");
  const std::string_view prefix = name.substr(0, open), inner = name.substr(open + 1, close - open - 1);
  std::vector<std::string> rest;
  if (Status s = expand_name(name.substr(close + 1), &rest); !s.ok()) return s;
  if (inner.empty()) return InvalidArgument("empty brackets in '" + std::string(name) + "'");
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    if (i < inner.size() && inner[i] != ',') continue;
    const std::string_view item = inner.substr(start, i - start);
    start = i + 1;
    const size_t dash = item.find('-');
    const std::string_view lo = item.substr(0, dash);
    const std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi))
      return InvalidArgument("bad range '" + std::string(item) + "' in '" + std::string(name) + "'");
    const int a = to_int(lo), b = to_int(hi);
    if (b < a) return InvalidArgument("reversed range '" + std::string(item) + "' in '" + std::string(name) + "'");
    for (int v = a; v <= b; ++v) {
      std::string num = std::to_string(v);
      if (num.size() < lo.size()) num.insert(0, lo.size() - num.size(), '0');
      for (const std::string& r : rest) out->push_back(std::string(prefix) + num + r);
    }
  }
  return Status::Ok();
}

}  // namespace

bool in_slurm_allocation() { return env("SLURM_JOB_ID") != nullptr; }

StatusOr<std::vector<std::string>> expand_hostlist(std::string_view expr) {
  LZ_ASSIGN_OR_RETURN(auto names, split_top(expr));
  std::vector<std::string> out;
  for (std::string_view n : names)
    if (Status s = expand_name(n, &out); !s.ok()) return s;
  if (out.empty()) return InvalidArgument("the hostlist '" + std::string(expr) + "' names no host");
  return out;
}

StatusOr<std::vector<int>> expand_tasks_per_node(std::string_view expr) {
  std::vector<int> out;
  size_t start = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    if (i < expr.size() && expr[i] != ',') continue;
    std::string_view item = expr.substr(start, i - start);
    start = i + 1;
    int repeat = 1;
    if (size_t p = item.find("(x"); p != std::string_view::npos) {
      std::string_view r = item.substr(p + 2);
      if (r.empty() || r.back() != ')' || !all_digits(r.substr(0, r.size() - 1)))
        return InvalidArgument("bad item '" + std::string(item) + "' in '" + std::string(expr) + "'");
      repeat = to_int(r.substr(0, r.size() - 1));
      item = item.substr(0, p);
    }
    if (!all_digits(item) || to_int(item) < 1 || repeat < 1)
      return InvalidArgument("bad item '" + std::string(item) + "' in '" + std::string(expr) + "'");
    out.insert(out.end(), static_cast<size_t>(repeat), to_int(item));
  }
  return out;
}

StatusOr<std::vector<HostEntry>> slurm_allocation_hosts() {
  if (!in_slurm_allocation()) return Unavailable("not inside a Slurm allocation (SLURM_JOB_ID is not set)");
  const char* var = "SLURM_JOB_NODELIST";
  const char* list = env(var);
  if (list == nullptr) list = env(var = "SLURM_NODELIST");
  if (list == nullptr) return InvalidArgument("SLURM_JOB_ID is set but neither SLURM_JOB_NODELIST nor SLURM_NODELIST");
  auto names = expand_hostlist(list);
  if (!names.ok()) return names.status().with_context(var);
  std::vector<int> tasks(names->size(), 1);
  if (const char* tpn = env("SLURM_TASKS_PER_NODE"); tpn != nullptr) {
    auto t = expand_tasks_per_node(tpn);
    if (!t.ok()) return t.status().with_context("SLURM_TASKS_PER_NODE");
    if (t->size() != names->size())
      return InvalidArgument("SLURM_TASKS_PER_NODE '" + std::string(tpn) + "' gives " + std::to_string(t->size()) +
                             " nodes but " + var + " '" + list + "' names " + std::to_string(names->size()));
    tasks = std::move(*t);
  }
  std::vector<HostEntry> hosts;
  for (size_t i = 0; i < names->size(); ++i) hosts.push_back({(*names)[i], tasks[i]});
  return hosts;
}

std::string slurm_job_name() {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (job == nullptr || *job == '\0') return "";
  const char* step = std::getenv("SLURM_STEP_ID");
  return std::string(job) + (step != nullptr && *step != '\0' ? std::string(".") + step : "");
}

}  // namespace lz::launcher
