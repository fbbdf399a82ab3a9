// Small string helpers shared by the parameter system, selection and the CLIs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lz::str {

std::string_view trim(std::string_view s);
// Splits on `sep`, trimming each piece; empty pieces are dropped.
std::vector<std::string> split(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string to_lower(std::string_view s);
// `v` as exec*() and MPI_Comm_spawn take it: pointers to each string's
// characters, then a null pointer. Valid while `v` lives unchanged.
std::vector<char*> c_array(const std::vector<std::string>& v);

// Damerau-Levenshtein (optimal string alignment) distance.
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `name`, or "" when none is close enough to be a
// plausible typo (distance <= max(2, len/3)).
std::string closest(std::string_view name, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "" — appended to "unknown ..." messages.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace lz::str
