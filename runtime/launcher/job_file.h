// JobFile: the registry entry of a running job, so that later commands
// (`lazarus ps`, `lazarus checkpoint <job>`) can find its launcher.
//
// One JSON file per job, <dir>/<job id>.json, where <dir> is
// $XDG_RUNTIME_DIR/lazarus/jobs when that is set, else
// /tmp/lazarus-<uid>/jobs (created 0700 and refused unless owned by the
// user). The file is written atomically (temporary name, rename), mode 0600,
// holds no secret, and is removed when the object is destroyed.
//
//   LZ_ASSIGN_OR_RETURN(JobFile f, JobFile::create(job_id, json_text));
//   f.update(new_json_text);
#pragma once

#include <string>

#include "lazarus/status.h"

namespace lz::launcher {

class JobFile {
 public:
  static std::string directory();
  // Creates directory() (0700, owned by the user) when needed.
  static Status ensure_directory();
  static StatusOr<JobFile> create(const std::string& job_id, const std::string& json);

  JobFile(JobFile&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  JobFile& operator=(JobFile&&) = delete;
  JobFile(const JobFile&) = delete;
  ~JobFile();

  Status update(const std::string& json);
  const std::string& path() const { return path_; }

 private:
  explicit JobFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace lz::launcher
