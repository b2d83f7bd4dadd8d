// What `hipinfer bench` reports about the machine and the process: CPU model, cores, peak RSS.
#pragma once

#include <cstdint>
#include <string>

namespace hi::cli {

struct MachineInfo {
  std::string cpu_model;   // /proc/cpuinfo "model name" ("unknown CPU" when it says nothing)
  int logical_cpus = 0;    // CPUs this process may run on (its affinity mask)
  int physical_cores = 0;  // distinct (package, core) among those CPUs
};

MachineInfo machine_info();

// VmHWM from /proc/self/status: the process's peak resident set, in bytes; -1 if unreadable.
int64_t process_peak_rss_bytes();

}  // namespace hi::cli
