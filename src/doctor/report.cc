// `hipinfer report`: a filled-in Markdown bug report from the doctor's findings, the failing
// command's output and the model, with secrets and (optionally) home paths taken out.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "doctor/context.h"
#include "doctor/model_summary.h"
#include "doctor/process.h"

namespace hi::doctor {
namespace {

// A code fence longer than any run of backticks inside `text`.
std::string fenced(const std::string& text, const std::string& lang = "") {
  size_t longest = 0, run = 0;
  for (const char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  return fence + lang + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + fence + "\n";
}

std::string or_none(const std::string& v, const std::string& none = "not found") { return v.empty() ? none : v; }

std::string framework_row(const SystemFacts& f, const std::string& prefix, const std::string& label) {
  std::vector<std::string> found;
  for (const auto& c : f.frameworks)
    if (starts_with(c.name, prefix) && (prefix != "onnx" || c.name == "onnx"))
      found.push_back(c.name + " " + c.version + (c.built_for.empty() ? "" : " (" + c.built_for + ")"));
  return "| " + label + " | " + (found.empty() ? std::string("not installed") : join(found, ", ")) + " |\n";
}

std::string versions_section(const ReportOptions& o, const SystemFacts& f) {
  std::string s = "## Versions\n\n| component | version |\n|---|---|\n";
  s += "| hipinfer | " + or_none(o.hipinfer_version, "unknown") +
       " (GPU runtime: " + or_none(f.hipinfer_runtime, "none built") + ") |\n";
  s += "| ROCm | " + or_none(f.rocm_version, "not installed") + " |\n";
  s += "| CUDA toolkit | " + or_none(f.cuda_toolkit_version, "not installed") + " |\n";
  s += "| GPU driver | " +
       (!f.nvidia_driver.empty() ? "NVIDIA " + f.nvidia_driver : or_none(f.amdgpu_driver, "none loaded")) + " |\n";
  for (const auto& lib : f.libraries) s += "| " + lib.name + " | " + or_none(lib.version, "unknown") + " |\n";
  s += framework_row(f, "torch", "PyTorch");
  s += framework_row(f, "onnxruntime", "ONNX Runtime");
  s += framework_row(f, "onnx", "onnx");
  s += "| Python | " + or_none(f.python) + " |\n";
  s += "| OS | " + or_none(f.os, "unknown") + (f.kernel.empty() ? "" : ", Linux " + f.kernel) + " |\n";
  s += "| libstdc++ | " + or_none(f.libstdcxx) + " |\n";
  return s + "\n";
}

std::string hardware_section(const SystemFacts& f) {
  std::string s = "## GPU and CPU\n\n";
  if (f.gpus.empty()) {
    s += "No GPU found (hipinfer runs on the CPU).\n\n";
  } else {
    s += "| # | model | architecture | memory | PCI bus | PCIe link |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < f.gpus.size(); ++i) {
      const auto& g = f.gpus[i];
      const std::string link =
          g.link_width ? str("x", g.link_width, "/x", g.link_width_max, " ", g.link_speed) : "unknown";
      s += "| " + std::to_string(i) + " | " + g.name + " | " + or_none(g.arch, "unknown") + " | " +
           (g.memory_total ? format_bytes(g.memory_total) : "unknown") + " | " + g.pci_bus_id + " | " + link + " |\n";
    }
    s += "\n";
  }
  s += "CPU: " + or_none(f.cpu_model, "unknown") + ", " + std::to_string(f.cpu_logical) + " logical CPUs; " +
       (f.cpu_features.empty() ? std::string("no vector extensions hipinfer uses") : join(f.cpu_features, " ")) +
       ". Host memory: " + format_bytes(f.host_memory_available) + " available of " +
       format_bytes(f.host_memory_total) + ".\n\n";
  return s;
}

// The end of the log (where the error is), at most 256 KiB of it, read without reading the rest:
// only regular files (a FIFO would block, /dev/zero never ends).
std::string read_log(const std::string& path) {
  constexpr std::streamoff kMax = 256 << 10;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "(could not read " + path + ": not a regular file)\n";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(could not read " + path + ")\n";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return "(could not read " + path + ")\n";
  const std::streamoff from = std::max<std::streamoff>(0, size - kMax);
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (from > 0) text = "[... first " + std::to_string(from) + " bytes cut ...]\n" + text;
  return text;
}

std::string tried_section(const DoctorResult& r) {
  std::string s = "## What was already tried\n\n";
  int n = 0;
  for (const auto& x : r.findings) {
    if (x.level == Level::kOk) continue;
    ++n;
    s += "- [ ] " + std::string(x.level == Level::kError ? "**error** " : "warning ") + x.title +
         (x.fix.empty() ? "" : " — fix: `" + x.fix + "`") + "\n";
  }
  if (n == 0) s += "- `hipinfer doctor` found no problems.\n";
  else s += "\nTick what you ran (these are what `hipinfer doctor` suggests).\n";
  return s + "- _Add anything else you tried._\n\n";
}

std::string environment_section(const std::map<std::string, std::string>& env) {
  std::string lines;
  int hidden = 0;
  for (const auto& [k, v] : env) {
    if (report_may_show_variable(k)) lines += k + "=" + v + "\n";
    else ++hidden;
  }
  return "## Environment variables\n\nGPU-, thread- and library-related variables only; " + std::to_string(hidden) +
         " others left out.\n\n" + fenced(lines.empty() ? "(none set)\n" : lines) + "\n";
}

std::string mask_home(const std::string& text, const std::string& home) {
  std::string out;
  size_t from = 0;
  if (home.size() > 1)  // "/" alone would turn every path into ~
    for (size_t at; (at = text.find(home, from)) != std::string::npos; from = at + home.size())
      out.append(text, from, at - from).append("~");
  out.append(text, from, std::string::npos);
  return std::regex_replace(out, std::regex("/home/[^/\\s`'\"|)]+"), "/home/<user>");
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

// The first line of the output that names an error, for the title.
std::string error_line(const std::string& output) {
  for (const auto& line : split(output, '\n'))
    if (lower(line).find("error") != std::string::npos) return trim(line).substr(0, 120);
  return "";
}

}  // namespace

Result<CommandRun> run_shell_command(const std::string& command, int timeout_s,
                                     const std::map<std::string, std::string>& env) {
  const auto r = run_process({"/bin/sh", "-c", command}, timeout_s, &env, 1 << 20);
  if (!r) return error(StatusCode::kRuntimeError, "could not start /bin/sh to run: ", command);
  return CommandRun{command, r->output, r->exit_status, r->timed_out, r->seconds};
}

Result<std::string> make_report(const ReportOptions& o) {
  const DoctorResult doctor = run_doctor(o.doctor);
  std::optional<CommandRun> run;
  if (!o.command.empty()) {
    HI_ASSIGN_OR_RETURN(CommandRun r, run_shell_command(o.command, o.command_timeout_s, o.doctor.env));
    run = std::move(r);
  }
  const std::string err = run ? error_line(run->output) : "";
  std::string s = "# Bug report: " + (err.empty() ? std::string("hipinfer problem") : err) + "\n\n";
  s += "<!-- Written by `hipinfer report` on " + today() +
       ". Read it before posting: secrets were filtered, but check. -->\n\n";

  s += "## Describe the problem\n\n";
  if (run)
    s += "`" + run->command + "` " +
         (run->timed_out ? "was stopped after " + std::to_string(o.command_timeout_s) + " s"
                         : "exited with status " + std::to_string(run->exit_status)) +
         ".\n";
  s += "_What did you expect, and what happened instead?_\n\n";

  s += versions_section(o, doctor.facts);
  s += hardware_section(doctor.facts);

  s += "## Model\n\n" +
       (o.model_path.empty() ? std::string("No model given (`--model FILE` adds its summary).\n")
                             : summarize_model(o.model_path)) +
       "\n";

  s += "## Steps to reproduce\n\n";
  if (run) s += "1. Run:\n\n" + fenced(run->command, "sh") + "\n";
  else s += "1. _The command that fails (`hipinfer report --command \"...\"` runs it and fills this in)._\n\n";

  s += "## Error log\n\n";
  if (run)
    s += "Output of the command (exit status " + std::to_string(run->exit_status) +
         (run->timed_out ? ", timed out" : "") + ", " + std::to_string(static_cast<int>(run->seconds * 1000)) +
         " ms):\n\n" + fenced(run->output.empty() ? "(no output)\n" : run->output) + "\n";
  if (!o.log_path.empty()) s += "Log file `" + o.log_path + "`:\n\n" + fenced(read_log(o.log_path)) + "\n";
  if (!run && o.log_path.empty()) s += "_No command or log given (`--command \"...\"` or `--log FILE`)._\n\n";

  s += tried_section(doctor);
  s += "## hipinfer doctor\n\n<details><summary>" + std::to_string(doctor.count(Level::kOk)) + " ok, " +
       std::to_string(doctor.count(Level::kWarning)) + " warnings, " + std::to_string(doctor.count(Level::kError)) +
       " errors</summary>\n\n" + fenced(format_text(doctor, false)) + "\n</details>\n\n";
  s += environment_section(o.doctor.env);

  s = redact_secrets(s);
  if (o.mask_home) {
    const auto home = o.doctor.env.find("HOME");
    s = mask_home(s, home == o.doctor.env.end() ? "" : home->second);
  }
  return s;
}

}  // namespace hi::doctor
