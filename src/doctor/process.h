// Runs a program or a shell command with a timeout and captures its output (stdout and stderr
// together). Used for rocminfo / nvidia-smi / python by the doctor and for `report --command`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hi::doctor {

struct ProcessResult {
  std::string output;
  int exit_status = -1;  // exit code, or 128 + signal
  bool timed_out = false;
  double seconds = 0;
};

// argv[0] is a path. `env` replaces the environment when given. nullopt when it cannot start.
// Output past `max_output` bytes keeps its head and tail with a marker in between.
std::optional<ProcessResult> run_process(const std::vector<std::string>& argv, int timeout_s,
                                         const std::map<std::string, std::string>* env, size_t max_output = 4 << 20);

}  // namespace hi::doctor
