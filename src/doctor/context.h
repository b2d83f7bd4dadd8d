// What every check family shares: the system root it reads under, the environment, the user,
// external tool output, the compatibility matrix, and the sink findings go to.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/json.h"
#include "hipinfer/doctor.h"

namespace hi::doctor {

class Context {
 public:
  explicit Context(const DoctorOptions& options);

  // True when the root is not the real machine: tools are not run, their saved output is read.
  bool fake() const { return fake_; }
  // The path on this machine for a system path ("/sys/..." -> "<root>/sys/...").
  std::string host_path(std::string_view system_path) const;
  std::optional<std::string> read(std::string_view system_path, size_t max_bytes = 1 << 20) const;
  // First line, trimmed; "" when unreadable.
  std::string read_line(std::string_view system_path) const;
  bool exists(std::string_view system_path) const;
  bool is_dir(std::string_view system_path) const;
  // Entry names of a directory, sorted; empty when it is missing.
  std::vector<std::string> list(std::string_view system_dir) const;
  // Real path (symlinks resolved) as a system path; the input when it cannot be resolved.
  std::string resolve(std::string_view system_path) const;

  std::string env(const std::string& name) const;
  bool has_env(const std::string& name) const { return options_.env.count(name) > 0; }
  const std::map<std::string, std::string>& environment() const { return options_.env; }

  // Output of an external tool. The real root runs `name` (searched in PATH and `extra_dirs`)
  // with `args`; a fake root reads <root>/tool-output/<name>. nullopt when it is not there.
  std::optional<std::string> tool(const std::string& name, const std::vector<std::string>& args,
                                  const std::vector<std::string>& extra_dirs = {}) const;
  // First executable `name` in PATH (then `extra_dirs`), as a system path; "" when none.
  std::string find_in_path(const std::string& name, const std::vector<std::string>& extra_dirs = {}) const;

  const std::string& user() const { return user_; }
  bool user_is_root() const { return user_ == "root"; }
  // Groups of `user` from /etc/passwd and /etc/group under the root.
  const std::set<std::string>& user_groups() const { return groups_; }

  const Json& matrix() const { return matrix_; }
  const DoctorOptions& options() const { return options_; }

 private:
  DoctorOptions options_;
  bool fake_ = false;
  std::string root_;  // without trailing slash; "" for the real root
  std::string user_;
  std::set<std::string> groups_;
  Json matrix_;
};

// Where findings and facts go. Check families append; the order they run in is in doctor.cc.
struct Sink {
  SystemFacts& facts;
  std::vector<Finding>& findings;
  void add(Level level, std::string id, std::string title, std::string detail = "", std::string fix = "") {
    findings.push_back({std::move(id), level, std::move(title), std::move(detail), std::move(fix)});
  }
  void ok(std::string id, std::string title, std::string detail = "") {
    add(Level::kOk, std::move(id), std::move(title), std::move(detail));
  }
  void warn(std::string id, std::string title, std::string detail, std::string fix = "") {
    add(Level::kWarning, std::move(id), std::move(title), std::move(detail), std::move(fix));
  }
  void error(std::string id, std::string title, std::string detail, std::string fix = "") {
    add(Level::kError, std::move(id), std::move(title), std::move(detail), std::move(fix));
  }
};

// Check families, one file each, run in this order by run_doctor(); later ones read the facts
// earlier ones filled in (the GPUs first).
void check_system(const Context& ctx, Sink& sink);        // cpu.cc: OS, CPU, host memory
void check_gpus(const Context& ctx, Sink& sink);          // gpu_sysfs.cc
void check_pcie(const Context& ctx, Sink& sink);          // pcie.cc
void check_permissions(const Context& ctx, Sink& sink);   // permissions.cc
void check_environment(const Context& ctx, Sink& sink);   // environment.cc
void check_libraries(const Context& ctx, Sink& sink);     // libraries.cc
void check_frameworks(const Context& ctx, Sink& sink);    // frameworks.cc
void check_elf_versions(const Context& ctx, Sink& sink);  // elf_versions.cc
void check_compat(const Context& ctx, Sink& sink);        // compat.cc

// Small helpers shared by the families (util.cc).
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep, bool skip_empty = true);
bool starts_with(std::string_view s, std::string_view prefix);
std::string lower(std::string_view s);
std::string join(const std::vector<std::string>& items, const std::string& sep);
std::string format_bytes(int64_t bytes);
// Compares dotted versions numerically ("12.10" > "12.9"); non-numeric parts compare as text.
int compare_versions(const std::string& a, const std::string& b);
// "12.4.1" -> "12"; "6.2.0-1234" -> "6".
std::string major_of(const std::string& version);
std::string major_minor_of(const std::string& version);
// Value of "Key: value" / "key=value" lines.
std::string field(const std::string& text, const std::string& key, char sep = ':');
// Single-quotes a shell word when needed.
std::string shell_quote(const std::string& word);
// Finds the GPUs of one vendor in the facts.
int count_gpus(const SystemFacts& facts, const std::string& vendor);

}  // namespace hi::doctor
