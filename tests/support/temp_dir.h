// TempDir: a fresh directory per test (mkdtemp), removed with its contents
// when the object goes out of scope.
//
//   lz::test::TempDir dir;
//   std::string f = dir.write("a.yaml", "cr_criu_priority: 7\n");
#pragma once

#include <string>

namespace lz::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to <dir>/<name> (creating parent folders) and returns the path.
  std::string write(const std::string& name, const std::string& content) const;
  // Creates <dir>/<name> as a directory and returns its path.
  std::string mkdir(const std::string& name) const;

 private:
  std::string path_;
};

}  // namespace lz::test
