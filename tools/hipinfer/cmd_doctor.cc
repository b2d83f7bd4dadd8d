// `hipinfer doctor`: checks GPUs, drivers, libraries, frameworks, permissions and environment.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli.h"
#include "hipinfer/doctor.h"

namespace hi::cli {

const CommandSpec* cmd_doctor_spec() {
  static const CommandSpec spec{
      "doctor",
      "[options]",
      "check that this machine can run models on its GPUs, and say how to fix what cannot",
      "Looks at the GPUs (sysfs, rocminfo, rocm-smi, nvidia-smi, the GPU runtime), drivers, ROCm/CUDA\n"
      "libraries, PyTorch / ONNX Runtime / onnx for the python in PATH (or $HI_PYTHON), shared-library\n"
      "and libstdc++ versions, device permissions, PCIe links, environment variables, CPU and memory.\n"
      "Each finding is ok, warning or error, with why and the command that fixes it.\n"
      "Exit status: 0 when nothing is an error, 1 otherwise. Colour only on a terminal; NO_COLOR turns it off.",
      {
          {"--json", "", "", "print the findings and facts as JSON"},
          {"--root", "", "DIR", "advanced: read the system under DIR instead of / (fake machines in tests)"},
          {"--matrix", "", "FILE", "advanced: use this compatibility matrix instead of the built-in one"},
      },
      0,
      0};
  return &spec;
}

int cmd_doctor(const Args& args) {
  doctor::DoctorOptions options;
  options.env = doctor::environment_from_process();
  options.root = args.get("--root", "/");
  options.compat_matrix_path = args.get("--matrix");
  if (!options.compat_matrix_path.empty()) {
    // A regular file of at most 16 MiB (a FIFO would block, /dev/zero never ends).
    std::error_code ec;
    const std::string& m = options.compat_matrix_path;
    if (!std::filesystem::is_regular_file(m, ec) || std::filesystem::file_size(m, ec) > (16u << 20) || ec) {
      std::fprintf(stderr, "hipinfer: error: --matrix '%s': not a regular file of at most 16 MiB\n", m.c_str());
      return kExitBadInput;
    }
  }
  const doctor::DoctorResult result = doctor::run_doctor(options);
  if (args.has("--json")) {
    std::fputs(doctor::to_json(result).c_str(), stdout);
  } else {
    const char* no_color = std::getenv("NO_COLOR");
    const bool color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
    std::fputs(doctor::format_text(result, color).c_str(), stdout);
  }
  return result.has_errors() ? kExitFailure : kExitOk;
}

}  // namespace hi::cli
