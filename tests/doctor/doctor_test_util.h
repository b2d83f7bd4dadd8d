// Fake machines for the doctor tests: each roots/<name>/ has root/ (the file system), env (the
// environment, KEY=VALUE lines), elf-files (generated ELF fixtures to place in the root) and
// expected (the findings, "level id" per line). See README.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hipinfer/doctor.h"

namespace hi::doctor::testing {

// What a library file in a root's source tree holds; copies get a real ELF shared object instead.
inline constexpr const char* kPlaceholderLibrary = "placeholder library";

std::vector<std::string> root_names();
// Copies roots/<name>/root to a new temporary directory, adds its ELF fixtures, replaces its
// placeholder libraries with a real shared object, and returns the path.
std::string make_root(const std::string& name);
std::map<std::string, std::string> root_env(const std::string& name);
std::vector<std::string> root_expected(const std::string& name);    // sorted
DoctorOptions root_options(const std::string& name);                // root copied, env read
std::vector<std::string> finding_keys(const DoctorResult& result);  // sorted "level id"
const Finding* find(const DoctorResult& result, const std::string& id);
std::string read_text(const std::string& path);

}  // namespace hi::doctor::testing
