// `hipinfer doctor` and `hipinfer report` as a library: checks that a machine can run hipinfer
// (and the PyTorch / ONNX Runtime beside it) on its GPUs, and writes bug reports from what it finds.
//
// Everything the doctor reads goes through a system root and an environment map, so tests run it
// on fake machines (tests/doctor/roots/) and a Python binding can run it on the real one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/export.h"
#include "hipinfer/status.h"

HI_PUBLIC_BEGIN
namespace hi::doctor {

enum class Level { kOk, kWarning, kError };
const char* level_name(Level level);  // "ok", "warning", "error"

// One thing the doctor checked. `id` is stable (tools and tests key on it); several findings may
// share an id when it applies to several things (one per GPU, one per library).
struct Finding {
  std::string id;  // dotted: "env.hip_launch_blocking", "perm.device_access"
  Level level = Level::kOk;
  std::string title;   // one line: what was found
  std::string detail;  // one line: why it matters (or, for ok, the evidence)
  std::string fix;     // the exact shell command that fixes it; empty when nothing is to be done
                       // or the fix is not a command (a hardware change: `detail` says what to do)
};

struct GpuFacts {
  std::string vendor;                      // "amd" or "nvidia"
  std::string name;                        // "AMD Radeon RX 7900 XTX", or the PCI id when no name is known
  std::string arch;                        // "gfx1100", "sm_90"; empty when unknown
  std::string pci_bus_id;                  // "0000:03:00.0"
  int64_t memory_total = 0;                // bytes; 0 when unknown
  int64_t memory_used = -1;                // bytes; -1 when unknown
  std::string render_node;                 // "/dev/dri/renderD128" (AMD)
  int link_width = 0, link_width_max = 0;  // PCIe lanes; 0 when unknown
  std::string link_speed, link_speed_max;  // "16.0 GT/s PCIe"
  std::vector<std::string> sources;        // "pci", "kfd", "rocminfo", "nvidia-smi", "runtime"
};

// A library or package and the version it says it is.
struct Component {
  std::string name;                // "cuDNN", "rocBLAS", "torch", "onnxruntime-gpu"
  std::string version;             // "9.1.0"; empty when found but unversioned
  std::string path;                // where it was found
  std::string built_for;           // frameworks: "CUDA 12.1", "ROCm 6.2"; empty for CPU builds
  std::string cudnn;               // frameworks: cuDNN version they were built for, where they say
  std::vector<std::string> archs;  // GPU targets it carries, where it says ("gfx90a", ...)
};

struct SystemFacts {
  std::string os;      // PRETTY_NAME from /etc/os-release
  std::string kernel;  // from /proc/sys/kernel/osrelease
  std::string cpu_model;
  int cpu_logical = 0;
  std::vector<std::string> cpu_features;                     // instruction sets that matter to hipinfer
  int64_t host_memory_total = 0, host_memory_available = 0;  // bytes
  std::string rocm_version;                                  // /opt/rocm/.info/version
  std::string cuda_toolkit_version;                          // /usr/local/cuda/version.json
  std::string amdgpu_driver, nvidia_driver;
  std::string hipinfer_runtime;                // "CUDA 13.0" / "HIP 6.2" from query_gpus(); empty if none
  std::vector<std::string> hipinfer_backends;  // GPU backends this hipinfer build has
  std::vector<GpuFacts> gpus;
  std::vector<Component> libraries;   // GPU libraries hipinfer can use
  std::vector<Component> frameworks;  // torch, onnxruntime*, onnx
  std::string python;                 // the interpreter the frameworks were read for
  std::string libstdcxx;              // path of the libstdc++ the loader picks
  std::string compat_matrix_checked;  // date the compatibility matrix was last checked
};

struct DoctorResult {
  SystemFacts facts;
  std::vector<Finding> findings;
  bool has_errors() const;
  int count(Level level) const;
};

struct DoctorOptions {
  // Every system path is read under this root ("/" is the real machine). A fake root stands for
  // a whole machine: see tests/doctor/README.md for its layout (tool outputs, /dev listing).
  std::string root = "/";
  // The environment to check; fill it with environment_from_process() for the real one.
  std::map<std::string, std::string> env;
  // The user whose permissions are checked; empty: the process's user on the real root, $USER
  // from `env` under a fake root.
  std::string user;
  // Asks the GPU runtime for devices. Empty: hi::query_gpus() on the real root, nothing under a
  // fake root (tests inject one).
  std::function<GpuRuntimeInfo()> query_runtime;
  // Compatibility matrix (JSON); empty: the copy of data/compat_matrix.json built into hipinfer.
  std::string compat_matrix_path;
  // The binary whose shared libraries are checked; empty: /proc/self/exe on the real root.
  std::string self_exe;
  // Seconds each external tool (rocminfo, nvidia-smi, python) may run on the real root.
  int tool_timeout_s = 10;
};

std::map<std::string, std::string> environment_from_process();

// Never fails: what cannot be read becomes a finding or is left out.
DoctorResult run_doctor(const DoctorOptions& options);

std::string to_json(const DoctorResult& result);
// Human output; `color` adds ANSI colours (the CLI passes isatty && !NO_COLOR).
std::string format_text(const DoctorResult& result, bool color);

// ---- hipinfer report ----

struct ReportOptions {
  DoctorOptions doctor;
  std::string hipinfer_version;  // the CLI passes HI_VERSION
  std::string model_path;        // optional
  std::string log_path;          // optional: a log file to include
  std::string command;           // optional: the failing command, run through /bin/sh
  int command_timeout_s = 300;
  bool mask_home = false;  // replace the home directory with ~ everywhere
};

struct CommandRun {
  std::string command;
  std::string output;    // stdout and stderr, interleaved as written
  int exit_status = -1;  // exit code, or 128+signal
  bool timed_out = false;
  double seconds = 0;
};

// Runs `command` through /bin/sh with `env` as its environment, killing its process group after
// `timeout_s`. Fails only when the shell cannot be started.
Result<CommandRun> run_shell_command(const std::string& command, int timeout_s,
                                     const std::map<std::string, std::string>& env);

// Environment variables that may appear in a report; everything else is left out.
bool report_may_show_variable(const std::string& name);
// Replaces token-, key- and password-looking strings with "[REDACTED]".
std::string redact_secrets(const std::string& text);

// Runs the doctor (and the command, when given) and writes the Markdown report.
Result<std::string> make_report(const ReportOptions& options);

}  // namespace hi::doctor
HI_PUBLIC_END
