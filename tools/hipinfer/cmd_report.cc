// `hipinfer report`: writes a filled-in bug report (Markdown) from doctor's findings, the failing
// command's output and the model.
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "hipinfer/doctor.h"
#include "hipinfer/version.h"

namespace hi::cli {

const CommandSpec* cmd_report_spec() {
  static const CommandSpec spec{
      "report",
      "[options]",
      "write a bug report with versions, GPUs, the error log and what doctor suggests",
      "Runs 'hipinfer doctor' and, with --command, the failing command (through /bin/sh, with a\n"
      "timeout), and writes a Markdown report to stdout or -o FILE. Only GPU-, thread- and\n"
      "library-related environment variables are included, and token-, key- and password-like\n"
      "strings are replaced by [REDACTED]; read the report before posting it.",
      {
          {"--model", "", "FILE", "the model involved: its summary goes into the report"},
          {"--log", "", "FILE", "a log file to include (its last 256 KiB)"},
          {"--command", "", "CMD", "the command that fails; it is run and its output and exit status included"},
          {"--timeout", "", "SECONDS", "stop the command after this long (default 300)"},
          {"--output", "-o", "FILE", "write the report here instead of stdout"},
          {"--mask-home", "", "", "replace the home directory in paths with ~"},
          {"--root", "", "DIR", "advanced: read the system under DIR instead of /"},
      },
      0,
      0};
  return &spec;
}

int cmd_report(const Args& args) {
  doctor::ReportOptions options;
  options.doctor.env = doctor::environment_from_process();
  options.doctor.root = args.get("--root", "/");
  options.hipinfer_version = hi::version_string();
  options.model_path = args.get("--model");
  options.log_path = args.get("--log");
  options.command = args.get("--command");
  options.mask_home = args.has("--mask-home");
  auto timeout = args.get_int("--timeout", 300);
  if (!timeout.is_ok()) return report_error(timeout.status());
  options.command_timeout_s = static_cast<int>(timeout.value());

  auto report = doctor::make_report(options);
  if (!report.is_ok()) return report_error(report.status());
  if (!args.has("--output")) {
    std::fputs(report.value().c_str(), stdout);
    return kExitOk;
  }
  const std::string path = args.get("--output");
  std::ofstream out(path, std::ios::binary);
  out << report.value();
  if (!out) return report_error(error(StatusCode::kNotFound, "cannot write the report to ", path));
  std::fprintf(stderr, "hipinfer: report written to %s\n", path.c_str());
  return kExitOk;
}

}  // namespace hi::cli
