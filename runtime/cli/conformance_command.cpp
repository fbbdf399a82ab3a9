#include "conformance_command.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common_options.h"
#include "lazarus/plugin_loader.h"
#include "lazarus/registry.h"
#include "lazarus/strings.h"

namespace lz::cli {
namespace {
namespace fs = std::filesystem;

struct ConformanceOptions {
  CommonOptions common;
  std::string component;
  std::string junit;
  std::string suite_dir;  // where the suite binaries are (default: found beside this program)
  int timeout_s = 0;      // > 0: the transport suite's per-case job limit (LZ_CONFORMANCE_TIMEOUT)
  bool verbose = false;
};

// One case of the suite's report.
struct Case {
  std::string suite;   // "TransportConformance"
  std::string name;    // "Ordering" (the component's suffix removed)
  std::string result;  // "passed", "skipped", "failed"
  std::string reason;  // skip message or failure text
  std::string time;
};

// The binary holding each framework's suite, as tests/conformance builds it.
const char* suite_binary(const std::string& fw) {
  if (fw == "transport") return "lz_conformance_transport_test";
  if (fw == "coll") return "lz_conformance_coll_threads_test";
  if (fw == "cr") return "lz_conformance_cr_test";
  if (fw == "crcp") return "lz_conformance_crcp_test";
  return nullptr;
}

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return fs::path(buf).parent_path().string();
}

// The installed location first (<prefix>/libexec/lazarus), then the build
// tree's (build/tests/bin beside build/bin).
StatusOr<std::string> find_suite(const std::string& fw, const std::string& dir_option) {
  const char* bin = suite_binary(fw);
  if (bin == nullptr) return InvalidArgument("framework '" + fw + "' has no conformance suite");
  std::vector<std::string> dirs;
  if (!dir_option.empty()) dirs.push_back(dir_option);
  const std::string here = self_dir();
  dirs.push_back(here + "/../libexec/lazarus");
  dirs.push_back(here + "/../tests/bin");
  for (const auto& d : dirs) {
    const std::string p = d + "/" + bin;
    if (access(p.c_str(), X_OK) == 0) return fs::weakly_canonical(p).string();
  }
  return NotFound(std::string("the ") + fw + " conformance suite (" + bin + ") is not installed; looked in " +
                  str::join(dirs, ", ") + " (Lazarus built without tests?)");
}

std::string xml_unescape(std::string s) {
  static const std::pair<const char*, const char*> kEnt[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&#x0A;", "\n"}, {"&#x0D;", "\r"},
      {"&#x09;", "\t"}, {"&amp;", "&"}};
  for (auto [from, to] : kEnt) {
    for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += std::strlen(to)) s.replace(p, std::strlen(from), to);
  }
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

std::string attr(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  size_t p = tag.find(key);
  if (p == std::string::npos) return "";
  p += key.size();
  size_t e = tag.find('"', p);
  return xml_unescape(tag.substr(p, e == std::string::npos ? std::string::npos : e - p));
}

// The <testcase> elements of gtest's XML report. gtest writes one element
// per line with its children (failure, skipped) before </testcase>.
std::vector<Case> parse_report(const std::string& xml, const std::string& component) {
  std::vector<Case> out;
  size_t pos = 0;
  while ((pos = xml.find("<testcase ", pos)) != std::string::npos) {
    size_t tag_end = xml.find('>', pos);
    if (tag_end == std::string::npos) break;
    const std::string tag = xml.substr(pos, tag_end - pos);
    const bool empty = xml[tag_end - 1] == '/';
    size_t body_end = empty ? tag_end : xml.find("</testcase>", tag_end);
    const std::string body = empty ? "" : xml.substr(tag_end, body_end - tag_end);
    pos = body_end == std::string::npos ? xml.size() : body_end;
    Case c;
    c.name = attr(tag, "name");
    c.suite = attr(tag, "classname");
    if (auto slash = c.suite.find('/'); slash != std::string::npos) c.suite = c.suite.substr(slash + 1);
    const std::string suffix = "/" + component;
    if (c.name.size() > suffix.size() && c.name.compare(c.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      c.name.resize(c.name.size() - suffix.size());
    c.time = attr(tag, "time");
    if (attr(tag, "status") == "notrun") continue;
    if (size_t f = body.find("<failure "); f != std::string::npos) {
      c.result = "failed";
      c.reason = attr(body.substr(f, body.find('>', f) - f), "message");
    } else if (attr(tag, "result") == "skipped" || body.find("<skipped") != std::string::npos) {
      c.result = "skipped";
      size_t s = body.find("<skipped");
      if (s != std::string::npos) c.reason = attr(body.substr(s, body.find('>', s) - s), "message");
    } else {
      c.result = "passed";
    }
    out.push_back(std::move(c));
  }
  return out;
}

// First meaningful line of a gtest failure or skip message, without the
// "file:line" prefix gtest puts before it.
std::string first_line(std::string s) {
  for (const auto& line : str::split(s, '\n')) {
    std::string l(line);
    if (l.empty()) continue;
    if (l.find(".cpp:") != std::string::npos && l.find(' ') == std::string::npos) continue;
    if (auto p = l.find(".cpp:"); p != std::string::npos && l.find(": ", p) != std::string::npos && p < 80)
      l = l.substr(l.find(": ", p) + 2);
    if (l == "Skipped" || l == "Failure" || l == "Failed") continue;
    return l;
  }
  return s;
}

Status write_junit(const std::string& path, const std::string& fw, const std::string& component,
                   const std::vector<Case>& cases) {
  int failures = 0, skipped = 0;
  for (const auto& c : cases) {
    failures += c.result == "failed";
    skipped += c.result == "skipped";
  }
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<testsuites name=\"lazarus conformance\" tests=\"" << cases.size() << "\" failures=\"" << failures
    << "\" skipped=\"" << skipped << "\" errors=\"0\">\n";
  o << "  <testsuite name=\"" << xml_escape(fw + "/" + component) << "\" tests=\"" << cases.size()
    << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\" errors=\"0\">\n";
  for (const auto& c : cases) {
    o << "    <testcase classname=\"" << xml_escape(fw + "." + component + "." + c.suite) << "\" name=\""
      << xml_escape(c.name) << "\" time=\"" << (c.time.empty() ? "0" : c.time) << "\"";
    if (c.result == "passed") {
      o << "/>\n";
      continue;
    }
    o << ">\n";
    if (c.result == "failed")
      o << "      <failure message=\"" << xml_escape(first_line(c.reason)) << "\">" << xml_escape(c.reason)
        << "</failure>\n";
    else
      o << "      <skipped message=\"" << xml_escape(first_line(c.reason)) << "\"/>\n";
    o << "    </testcase>\n";
  }
  o << "  </testsuite>\n</testsuites>\n";
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return IoError("--junit: cannot write " + path + ": " + std::strerror(errno));
  f << o.str();
  f.close();
  if (!f) return IoError("--junit: cannot write " + path);
  return Status::Ok();
}

struct Target {
  std::string framework, name;
  std::string plugin_dir;  // a directory holding only the plugin (empty: a known component)
};

// A scratch directory removed with its contents.
struct ScratchDir {
  std::string path;
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

StatusOr<Target> resolve_target(const ConformanceOptions& opt, ScratchDir& scratch) {
  const std::string& c = opt.component;
  const bool is_file = c.find(".so") != std::string::npos && c.find('/') != std::string::npos;
  if (is_file || (c.size() > 3 && c.compare(c.size() - 3, 3, ".so") == 0)) {
    const std::string path = fs::absolute(c).string();
    auto loaded = load_plugin(path, &Registry::interface_version_of);
    if (!loaded.ok()) return loaded.status();
    Target t{loaded->desc->framework, loaded->desc->name, ""};
    std::string tmpl = (fs::temp_directory_path() / "lz-conformance.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return IoError(std::string("mkdtemp: ") + std::strerror(errno));
    scratch.path = tmpl;
    std::error_code ec;
    fs::create_symlink(path, fs::path(tmpl) / fs::path(path).filename(), ec);
    if (ec) return IoError("cannot link " + path + " into " + tmpl + ": " + ec.message());
    t.plugin_dir = tmpl;
    // The suite configures itself from the same settings: a bad or unknown
    // one would make it fall back to the built-in list and run nothing.
    Registry check;
    ConfigOptions co = opt.common.config();
    co.mca.push_back({"component_path", tmpl});
    LZ_RETURN_IF_ERROR(check.configure(co));
    return t;
  }
  // A name, or FRAMEWORK/NAME: what this Lazarus knows (plugins included).
  std::string fw_only, name = c;
  if (auto slash = c.find('/'); slash != std::string::npos) {
    fw_only = c.substr(0, slash);
    name = c.substr(slash + 1);
  }
  Registry reg;
  LZ_RETURN_IF_ERROR(reg.configure(opt.common.config()));
  std::vector<std::string> found, all;
  for (const auto& fw : reg.frameworks()) {
    if (!suite_binary(fw->name())) continue;
    for (const auto& n : fw->component_names()) {
      all.push_back(fw->name() + "/" + n);
      if (n == name && (fw_only.empty() || fw_only == fw->name())) found.push_back(fw->name());
    }
  }
  if (found.empty())
    return NotFound("no component '" + c + "'" + str::did_you_mean(c, all) + "; known: " + str::join(all, ", "));
  if (found.size() > 1)
    return InvalidArgument("'" + name + "' names a component of " + str::join(found, " and ") + "; say which: " +
                           found.front() + "/" + name);
  return Target{found.front(), name, ""};
}

// Runs the suite binary with the filter; its output goes to `log`.
StatusOr<int> run_suite(const std::string& bin, const std::string& filter, const std::string& xml,
                        const std::string& log, const Target& t, const ConformanceOptions& opt) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    if (!t.plugin_dir.empty() && kv.rfind("LZ_MCA_component_path=", 0) == 0) continue;
    env.push_back(kv);
  }
  for (const auto& [k, v] : opt.common.mca) env.push_back(std::string(ParamStore::kEnvPrefix) + k + "=" + v);
  if (!t.plugin_dir.empty()) env.push_back(std::string(ParamStore::kEnvPrefix) + "component_path=" + t.plugin_dir);
  if (opt.timeout_s > 0) env.push_back("LZ_CONFORMANCE_TIMEOUT=" + std::to_string(opt.timeout_s));
  std::vector<std::string> args = {bin, "--gtest_filter=" + filter, "--gtest_output=xml:" + xml, "--gtest_color=no"};
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) return IoError("cannot create " + log + ": " + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(out);
    return IoError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    dup2(out, 1);
    dup2(out, 2);
    execve(bin.c_str(), argv.data(), envp.data());
    std::fprintf(stderr, "cannot run %s: %s\n", bin.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(out);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return IoError(std::string("waitpid: ") + std::strerror(errno));
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run_conformance(const ConformanceOptions& opt) {
  ScratchDir scratch;
  auto target = resolve_target(opt, scratch);
  if (!target.ok()) {
    print_error(target.status());
    return 2;
  }
  auto bin = find_suite(target->framework, opt.suite_dir);
  if (!bin.ok()) {
    print_error(bin.status());
    return 2;
  }
  ScratchDir work;
  {
    std::string tmpl = (fs::temp_directory_path() / "lz-conformance-run.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      print_error(IoError(std::string("mkdtemp: ") + std::strerror(errno)));
      return 2;
    }
    work.path = tmpl;
  }
  // The suites name instances after the component (coll: "<name>_np<N>").
  const std::string& name = target->name;
  const std::string filter = target->framework == "coll" ? "*/" + name + "_np*" : "*/" + name;
  const std::string xml = work.path + "/report.xml", log = work.path + "/suite.log";
  std::printf("Conformance of %s/%s (%s), suite %s\n", target->framework.c_str(), name.c_str(),
              target->plugin_dir.empty() ? "known component" : ("plugin " + opt.component).c_str(), bin->c_str());
  std::fflush(stdout);
  auto rc = run_suite(*bin, filter, xml, log, *target, opt);
  if (!rc.ok()) {
    print_error(rc.status());
    return 2;
  }
  std::ifstream in(xml);
  std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ifstream lin(log);
  std::string suite_log((std::istreambuf_iterator<char>(lin)), std::istreambuf_iterator<char>());
  if (opt.verbose) std::fputs(suite_log.c_str(), stdout);
  std::vector<Case> cases = parse_report(report, name);
  int passed = 0, failed = 0, skipped = 0;
  size_t width = 4;
  for (const auto& c : cases) width = std::max(width, c.suite.size() + 1 + c.name.size());
  std::printf("\n%-*s  %-7s  %s\n", static_cast<int>(width), "CASE", "RESULT", "REASON");
  for (const auto& c : cases) {
    const std::string label = c.suite + "." + c.name;
    const std::string reason = c.result == "passed" ? "" : first_line(c.reason);
    std::printf("%-*s  %-7s  %s\n", static_cast<int>(width), label.c_str(),
                c.result == "passed" ? "PASS" : c.result == "skipped" ? "SKIP" : "FAIL", reason.c_str());
    passed += c.result == "passed";
    failed += c.result == "failed";
    skipped += c.result == "skipped";
  }
  std::printf("\n%s/%s: %d passed, %d skipped, %d failed\n", target->framework.c_str(), name.c_str(), passed, skipped,
              failed);
  if (!opt.junit.empty()) {
    if (Status s = write_junit(opt.junit, target->framework, name, cases); !s.ok()) {
      print_error(s);
      return 2;
    }
    std::printf("JUnit XML: %s\n", opt.junit.c_str());
  }
  if (cases.empty()) {
    std::fprintf(stderr, "lazarus: error: the suite ran no case for %s/%s (exit %d); its output:\n%s",
                 target->framework.c_str(), name.c_str(), *rc, suite_log.c_str());
    return 1;
  }
  if (failed > 0 || *rc != 0) {
    if (failed == 0)
      std::fprintf(stderr, "lazarus: error: the suite exited with %d; its output:\n%s", *rc, suite_log.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void add_conformance_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<ConformanceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conformance", "Run a framework's conformance suite against one component (a plugin file or a known name)");
  opt->common.add_to(*cmd);
  cmd->add_option("--component", opt->component,
                  "A plugin (path/to/lazarus_<fw>_<name>.so) or a component name (NAME or FRAMEWORK/NAME)")
      ->required();
  cmd->add_option("--junit", opt->junit, "Also write the results as JUnit XML to FILE")->type_name("FILE");
  cmd->add_option("--suite-dir", opt->suite_dir,
                  "Directory of the suite binaries (default: <prefix>/libexec/lazarus, or the build tree's)")
      ->type_name("DIR");
  cmd->add_option("--timeout", opt->timeout_s,
                  "Seconds each case's job may run before it is killed and failed (transport suite; default 120). "
                  "A component that hangs fails sooner with a smaller value")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--verbose,-v", opt->verbose, "Print the suite's own output too");
  cmd->callback([opt, &exit_code] { exit_code = run_conformance(*opt); });
}

}  // namespace lz::cli
