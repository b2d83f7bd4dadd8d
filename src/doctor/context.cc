// The system root, environment, user and tool outputs the checks read through.
#include "doctor/context.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "doctor/process.h"

namespace hi::doctor {

extern const char* const kBuiltinCompatMatrix;  // compat_matrix_data.cc, generated from data/

namespace {

std::string process_user() {
  if (const passwd* pw = getpwuid(geteuid())) return pw->pw_name;
  return std::to_string(geteuid());
}

}  // namespace

Context::Context(const DoctorOptions& options) : options_(options) {
  root_ = options.root.empty() ? "/" : options.root;
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  fake_ = root_ != "/";
  if (!fake_) root_.clear();

  user_ = options.user;
  if (user_.empty()) user_ = fake_ ? env("USER") : process_user();

  // Groups: the primary group from /etc/passwd, supplementary ones from /etc/group.
  std::string primary_gid;
  for (const auto& line : split(read("/etc/passwd").value_or(""), '\n')) {
    const auto f = split(line, ':', false);
    if (f.size() >= 4 && f[0] == user_) primary_gid = f[3];
  }
  for (const auto& line : split(read("/etc/group").value_or(""), '\n')) {
    const auto f = split(line, ':', false);
    if (f.size() < 3) continue;
    const auto members = f.size() >= 4 ? split(f[3], ',') : std::vector<std::string>{};
    if (f[2] == primary_gid || std::find(members.begin(), members.end(), user_) != members.end()) groups_.insert(f[0]);
  }

  std::string text = kBuiltinCompatMatrix;
  if (!options.compat_matrix_path.empty()) {
    // At most 16 MiB of a regular file (the CLI refuses others with a message first).
    std::error_code ec;
    const auto size = std::filesystem::is_regular_file(options.compat_matrix_path, ec)
                          ? std::filesystem::file_size(options.compat_matrix_path, ec)
                          : std::uintmax_t{0};
    text.clear();
    if (!ec && size > 0 && size <= (16u << 20)) {
      std::ifstream in(options.compat_matrix_path);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
  }
  auto parsed = Json::parse(text);
  if (parsed.is_ok()) matrix_ = std::move(parsed).value();
}

std::string Context::host_path(std::string_view system_path) const { return root_ + std::string(system_path); }

std::optional<std::string> Context::read(std::string_view system_path, size_t max_bytes) const {
  std::ifstream in(host_path(system_path), std::ios::binary);
  if (!in) return std::nullopt;
  std::string out(max_bytes, '\0');
  in.read(out.data(), static_cast<std::streamsize>(max_bytes));
  if (in.bad()) return std::nullopt;
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

std::string Context::read_line(std::string_view system_path) const {
  const auto text = read(system_path, 4096);
  if (!text) return "";
  return trim(text->substr(0, text->find('\n')));
}

bool Context::exists(std::string_view system_path) const {
  struct stat st;
  return ::stat(host_path(system_path).c_str(), &st) == 0;
}

bool Context::is_dir(std::string_view system_path) const {
  struct stat st;
  return ::stat(host_path(system_path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> Context::list(std::string_view system_dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(host_path(system_dir), ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string Context::resolve(std::string_view system_path) const {
  std::error_code ec;
  const auto real = std::filesystem::canonical(host_path(system_path), ec).string();
  if (ec) return std::string(system_path);
  if (root_.empty()) return real;
  return starts_with(real, root_ + "/") ? real.substr(root_.size()) : std::string(system_path);
}

std::string Context::env(const std::string& name) const {
  const auto it = options_.env.find(name);
  return it == options_.env.end() ? "" : it->second;
}

std::string Context::find_in_path(const std::string& name, const std::vector<std::string>& extra_dirs) const {
  if (name.find('/') != std::string::npos) return exists(name) ? name : "";
  std::vector<std::string> dirs = split(env("PATH"), ':');
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const auto& dir : dirs) {
    const std::string p = dir + "/" + name;
    if (fake_ ? exists(p) : ::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

std::optional<std::string> Context::tool(const std::string& name, const std::vector<std::string>& args,
                                         const std::vector<std::string>& extra_dirs) const {
  if (fake_) return read("/tool-output/" + name.substr(name.rfind('/') + 1));
  const std::string exe = find_in_path(name, extra_dirs);
  if (exe.empty()) return std::nullopt;
  std::vector<std::string> argv = {exe};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto run = run_process(argv, options_.tool_timeout_s, &options_.env, 1 << 20);
  if (!run || run->timed_out || run->exit_status != 0) return std::nullopt;
  return run->output;
}

}  // namespace hi::doctor
