// The parameter reference (docs/parameters.md): every framework, built-in
// component and parameter, with type, default, level, allowed values and
// help, as Markdown. It depends only on the build (no configuration file,
// environment or plugin is read), so the committed page can be compared
// with what the build prints (tests/docs/parameters_test.sh).
#pragma once

#include <ostream>

#include "lazarus/status.h"

namespace lz::cli {

Status print_parameter_reference(std::ostream& out);

}  // namespace lz::cli
