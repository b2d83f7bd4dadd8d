// Shared pieces of the `hipinfer` command: argument parsing, exit codes, command table.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hipinfer/status.h"

namespace hi::cli {

// Exit codes, documented in `hipinfer --help` and docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,    // a check failed (doctor found an error, a comparison did not match)
  kExitUsage = 2,      // bad command line
  kExitBadModel = 3,   // the model is invalid or uses something unsupported
  kExitBadInput = 4,   // a file or input given on the command line is missing or wrong
  kExitRuntime = 5,    // running failed (out of memory, device error)
  kExitInternal = 70,  // a hipinfer bug
};
int exit_code_for(const Status& status);
// Prints "hipinfer: error: <message>" to stderr and returns the exit code for it.
int report_error(const Status& status);
// Prints each of a session's warnings as "hipinfer: warning: <text>" to stderr.
void print_warnings(const std::vector<std::string>& warnings);
// "gpu,cpu" -> {"gpu", "cpu"}; empty items are kept (the session rejects them by name).
std::vector<std::string> split_commas(const std::string& list);

struct OptionSpec {
  std::string name;   // "--output-dir" (and "-o" as alias via `alias`)
  std::string alias;  // "" or "-o"
  std::string value;  // "" for a switch, else the value's placeholder ("DIR")
  std::string help;
  bool repeatable = false;
};

struct CommandSpec {
  std::string name;
  std::string usage;        // "MODEL [options]"
  std::string summary;      // one line
  std::string description;  // paragraph(s) after usage
  std::vector<OptionSpec> options;
  int min_positional = 0;
  int max_positional = 0;
};

class Args {
 public:
  // Parses argv after the command name; prints help and sets `exit_now` for --help.
  static Result<Args> parse(const CommandSpec& spec, int argc, char** argv);
  bool help_requested() const { return help_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& def = "") const;
  std::vector<std::string> get_all(const std::string& name) const;
  Result<int64_t> get_int(const std::string& name, int64_t def) const;
  Result<double> get_double(const std::string& name, double def) const;
  // A size in bytes: "1048576", "512K", "64M", "2G" (binary units); not negative.
  Result<int64_t> get_bytes(const std::string& name, int64_t def) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The arguments as given, after the command name (hipinfer serve hands them on).
  const std::vector<std::string>& raw() const { return raw_; }

 private:
  bool help_ = false;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  std::vector<std::string> raw_;
};

std::string format_help(const CommandSpec& spec);
std::string human_bytes(double bytes);
// Text from a model (names, producer) made safe for a terminal: control characters, escape
// sequences included, are printed as \xNN instead of acting on the terminal.
std::string printable(std::string_view text);

// Command entry points; each lives in cmd_<name>.cc.
struct Command {
  const CommandSpec* (*spec)();
  int (*main)(const Args& args);
};

}  // namespace hi::cli
