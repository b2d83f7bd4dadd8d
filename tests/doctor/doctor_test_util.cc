// Fake machines for the doctor tests (see doctor_test_util.h).
#include "doctor/doctor_test_util.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace hi::doctor::testing {
namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// Removes the copied roots when the test binary exits.
struct TempRoots {
  std::vector<std::string> dirs;
  ~TempRoots() {
    std::error_code ec;
    for (const auto& d : dirs) fs::remove_all(d, ec);
  }
};
TempRoots& temp_roots() {
  static TempRoots roots;
  return roots;
}

}  // namespace

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> root_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(HI_DOCTOR_ROOTS))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string make_root(const std::string& name) {
  std::string tmpl = (fs::temp_directory_path() / ("hi_doctor_" + name + "_XXXXXX")).string();
  const std::string dir = mkdtemp(tmpl.data());
  temp_roots().dirs.push_back(dir);
  fs::copy(std::string(HI_DOCTOR_ROOTS) + "/" + name + "/root", dir,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  // Library files in the source tree are placeholders; the doctor wants real shared objects.
  const std::string library = std::string(HI_DOCTOR_ELF_DIR) + "/fake_library.so";
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && !e.is_symlink() && read_text(e.path().string()).rfind(kPlaceholderLibrary, 0) == 0)
      fs::copy_file(library, e.path(), fs::copy_options::overwrite_existing);
  for (const auto& line : lines_of(std::string(HI_DOCTOR_ROOTS) + "/" + name + "/elf-files")) {
    const auto space = line.find(' ');
    const std::string target = dir + line.substr(0, space),
                      fixture = std::string(HI_DOCTOR_ELF_DIR) + "/" + line.substr(space + 1) + ".so";
    fs::create_directories(fs::path(target).parent_path());
    fs::copy_file(fixture, target, fs::copy_options::overwrite_existing);
  }
  return dir;
}

std::map<std::string, std::string> root_env(const std::string& name) {
  std::map<std::string, std::string> env;
  for (const auto& line : lines_of(std::string(HI_DOCTOR_ROOTS) + "/" + name + "/env")) {
    const auto eq = line.find('=');
    env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

std::vector<std::string> root_expected(const std::string& name) {
  auto lines = lines_of(std::string(HI_DOCTOR_ROOTS) + "/" + name + "/expected");
  std::sort(lines.begin(), lines.end());
  return lines;
}

DoctorOptions root_options(const std::string& name) {
  DoctorOptions o;
  o.root = make_root(name);
  o.env = root_env(name);
  return o;
}

std::vector<std::string> finding_keys(const DoctorResult& result) {
  std::vector<std::string> keys;
  for (const auto& f : result.findings) keys.push_back(std::string(level_name(f.level)) + " " + f.id);
  std::sort(keys.begin(), keys.end());
  return keys;
}

const Finding* find(const DoctorResult& result, const std::string& id) {
  for (const auto& f : result.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace hi::doctor::testing
