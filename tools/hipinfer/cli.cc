// Argument parsing, help text and exit codes for the `hipinfer` command.
#include "cli.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace hi::cli {

int exit_code_for(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidModel:
    case StatusCode::kUnsupported: return kExitBadModel;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound: return kExitBadInput;
    case StatusCode::kOutOfMemory:
    case StatusCode::kRuntimeError:
    case StatusCode::kCancelled:
    case StatusCode::kDeadlineExceeded: return kExitRuntime;
    case StatusCode::kInternal: return kExitInternal;
  }
  return kExitFailure;
}

int report_error(const Status& status) {
  std::fprintf(stderr, "hipinfer: error: %s\n", status.message().c_str());
  return exit_code_for(status);
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "hipinfer: warning: %s\n", w.c_str());
}

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    items.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

Result<Args> Args::parse(const CommandSpec& spec, int argc, char** argv) {
  Args a;
  a.raw_.assign(argv, argv + argc);
  auto find = [&](const std::string& flag) -> const OptionSpec* {
    for (const auto& o : spec.options)
      if (o.name == flag || (!o.alias.empty() && o.alias == flag)) return &o;
    return nullptr;
  };
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      a.help_ = true;
      return a;
    }
    if (arg.size() > 1 && arg[0] == '-' &&
        !(arg.size() > 1 && (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.'))) {
      std::string value;
      bool has_value = false;
      if (const auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
      const OptionSpec* o = find(arg);
      if (!o)
        return error(StatusCode::kInvalidArgument, "hipinfer ", spec.name, ": unknown option '", arg,
                     "' (see 'hipinfer ", spec.name, " --help')");
      if (o->value.empty()) {
        if (has_value) return error(StatusCode::kInvalidArgument, "option ", o->name, " takes no value");
        a.values_[o->name].push_back("1");
        continue;
      }
      if (!has_value) {
        if (i + 1 >= argc)
          return error(StatusCode::kInvalidArgument, "option ", o->name, " needs a value (", o->value, ")");
        value = argv[++i];
      }
      if (!o->repeatable && a.values_.count(o->name))
        return error(StatusCode::kInvalidArgument, "option ", o->name, " given twice");
      a.values_[o->name].push_back(value);
      continue;
    }
    a.positional_.push_back(arg);
  }
  const int n = static_cast<int>(a.positional_.size());
  if (n < spec.min_positional || n > spec.max_positional)
    return error(StatusCode::kInvalidArgument, "usage: hipinfer ", spec.name, " ", spec.usage, " (see 'hipinfer ",
                 spec.name, " --help')");
  return a;
}

std::string Args::get(const std::string& name, const std::string& def) const {
  auto it = values_.find(name);
  return it == values_.end() ? def : it->second.back();
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

Result<int64_t> Args::get_int(const std::string& name, int64_t def) const {
  if (!has(name)) return def;
  const std::string v = get(name);
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end)
    return error(StatusCode::kInvalidArgument, "option ", name, " expects an integer, got '", v, "'");
  return static_cast<int64_t>(x);
}

Result<double> Args::get_double(const std::string& name, double def) const {
  if (!has(name)) return def;
  const std::string v = get(name);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end)
    return error(StatusCode::kInvalidArgument, "option ", name, " expects a number, got '", v, "'");
  return x;
}

Result<int64_t> Args::get_bytes(const std::string& name, int64_t def) const {
  if (!has(name)) return def;
  const std::string v = get(name);
  auto bad = [&] {
    return error(StatusCode::kInvalidArgument, "option ", name,
                 " expects a size in bytes (e.g. 1048576, 512K, 64M, 2G), got '", v, "'");
  };
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || end == v.c_str() || n < 0 || errno == ERANGE) return bad();
  int shift = 0;
  const std::string unit = end;
  if (unit == "K" || unit == "KiB") shift = 10;
  else if (unit == "M" || unit == "MiB") shift = 20;
  else if (unit == "G" || unit == "GiB") shift = 30;
  else if (!unit.empty()) return bad();
  if (n > (INT64_MAX >> shift)) return bad();
  return static_cast<int64_t>(n) << shift;
}

std::string format_help(const CommandSpec& spec) {
  std::string s = "usage: hipinfer " + spec.name + " " + spec.usage + "\n\n" + spec.summary + "\n";
  if (!spec.description.empty()) s += "\n" + spec.description + "\n";
  s += "\noptions:\n";
  for (const auto& o : spec.options) {
    std::string left = "  " + (o.alias.empty() ? "" : o.alias + ", ") + o.name + (o.value.empty() ? "" : " " + o.value);
    if (left.size() < 30) left.resize(30, ' ');
    else left += "\n" + std::string(30, ' ');
    s += left + o.help + (o.repeatable ? " (repeatable)" : "") + "\n";
  }
  s += "  -h, --help                  show this help\n";
  return s;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace hi::cli
