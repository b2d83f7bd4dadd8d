// Machine and process facts for `hipinfer bench`; see bench_machine.h.
#include "bench_machine.h"

#include <sched.h>

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

namespace hi::cli {
namespace {

int read_int_file(const std::string& path, int fallback) {
  std::ifstream f(path);
  int v = fallback;
  if (!(f >> v)) return fallback;
  return v;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

MachineInfo machine_info() {
  MachineInfo m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = trim(line.substr(colon + 1));
      if (!m.cpu_model.empty()) break;
    }
  }
  if (m.cpu_model.empty()) m.cpu_model = "unknown CPU";

  // Cores come from sysfs topology, restricted to the CPUs we may run on (containers, taskset):
  // hyper-threads of one core share (package id, core id).
  cpu_set_t set;
  CPU_ZERO(&set);
  const bool have_mask = sched_getaffinity(0, sizeof set, &set) == 0;
  std::set<std::pair<int, int>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (have_mask ? !CPU_ISSET(cpu, &set) : cpu > 0) continue;
    ++m.logical_cpus;
    const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const int package = read_int_file(topo + "physical_package_id", 0);
    const int core = read_int_file(topo + "core_id", cpu);  // unknown topology: count each CPU
    cores.emplace(package, core);
  }
  m.physical_cores = static_cast<int>(cores.size());
  if (m.logical_cpus == 0) m.logical_cpus = m.physical_cores = 1;
  return m;
}

int64_t process_peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream in(line.substr(6));
    int64_t kib = 0;
    std::string unit;
    if (in >> kib >> unit && unit == "kB") return kib * 1024;
  }
  return -1;
}

}  // namespace hi::cli
