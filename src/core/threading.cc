#include "core/threading.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace hi {
namespace {

std::string read_first_line(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Physical cores among the CPUs of the affinity mask: distinct (package, core) pairs, since
// hyper-thread siblings share both.
int cores_in_affinity_mask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const unsigned logical = std::max(1u, std::thread::hardware_concurrency());
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return static_cast<int>(logical);
  std::set<std::pair<int, int>> seen;
  int allowed = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    ++allowed;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream core(dir + "core_id"), pkg(dir + "physical_package_id");
    int c = -1, p = -1;
    if (!(core >> c) || !(pkg >> p)) return std::max(allowed, CPU_COUNT(&mask));  // no topology: count CPUs
    seen.insert({p, c});
  }
  return seen.empty() ? std::max(1, allowed) : static_cast<int>(seen.size());
}

// The cgroup quota of this process as a core count (`cores` when there is none): the smallest
// quota of its cgroup and the cgroups above it, v2 (cpu.max) or v1 (cpu.cfs_quota_us).
int cores_under_cgroup_quota(int cores) {
  namespace fs = std::filesystem;
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    fs::path dir = line.substr(second + 1);
    const bool v2 = controllers.empty();
    const bool v1_cpu = controllers == "cpu" || controllers.rfind("cpu,", 0) == 0 ||
                        controllers.find(",cpu,") != std::string::npos ||
                        (controllers.size() > 4 && controllers.compare(controllers.size() - 4, 4, ",cpu") == 0);
    if (!v2 && !v1_cpu) continue;
    const fs::path root = v2 ? fs::path("/sys/fs/cgroup") : fs::path("/sys/fs/cgroup") / controllers;
    for (int depth = 0; depth < 64; ++depth) {
      const fs::path here = root / dir.relative_path();
      if (v2) {
        cores = cores_under_quota(read_first_line((here / "cpu.max").string()), cores);
      } else {
        const std::string quota = read_first_line((here / "cpu.cfs_quota_us").string());
        const std::string period = read_first_line((here / "cpu.cfs_period_us").string());
        if (!quota.empty() && quota[0] != '-' && !period.empty())
          cores = cores_under_quota(quota + " " + period, cores);
      }
      if (!dir.has_relative_path()) break;
      dir = dir.parent_path();
    }
  }
  return cores;
}

thread_local RegionLoad* t_region_load = nullptr;

}  // namespace

int cores_under_quota(std::string_view cpu_max, int cores) {
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return cores;
  int64_t quota = 0, period = 0;
  const auto q = cpu_max.substr(0, space), p = cpu_max.substr(space + 1);
  if (std::from_chars(q.data(), q.data() + q.size(), quota).ec != std::errc() ||
      std::from_chars(p.data(), p.data() + p.size(), period).ec != std::errc() || quota <= 0 || period <= 0)
    return cores;  // "max", or not a quota
  const int64_t allowed = std::max<int64_t>(1, (quota + period - 1) / period);
  return static_cast<int>(std::min<int64_t>(cores, allowed));
}

int physical_cores() {
  static const int cores = cores_under_cgroup_quota(cores_in_affinity_mask());
  return cores;
}

int resolve_threads(int requested) { return requested > 0 ? requested : physical_cores(); }

ThreadScope::ThreadScope(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(threads); }
ThreadScope::~ThreadScope() { omp_set_num_threads(previous_); }

int current_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

RegionLoadScope::RegionLoadScope(RegionLoad* load) : previous_(t_region_load) { t_region_load = load; }
RegionLoadScope::~RegionLoadScope() { t_region_load = previous_; }
RegionLoad* current_region_load() { return t_region_load; }

double idle_cpu_seconds() {
  static const double ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (ticks_per_s <= 0 || sched_getaffinity(0, sizeof mask, &mask) != 0) return -1;
  std::ifstream in("/proc/stat");
  double ticks = 0;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    // "cpuN user nice system idle iowait ...": per-CPU lines only, those of the mask.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0;
    if (!(fields >> cpu >> user >> nice >> system >> idle >> iowait)) continue;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &mask)) continue;
    ticks += idle + iowait;
    any = true;
  }
  return any ? ticks / ticks_per_s : -1;
}

ThreadGovernor::ThreadGovernor(int threads, bool adapt, IdleClock idle)
    : full_(std::max(1, threads)), adapt_(adapt && threads > 1), current_(full_), idle_(idle) {}

int ThreadGovernor::threads_for_run(Clock::time_point now) {
  if (!adapt_) return full_;
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ == full_ || now < hold_until_) return current_;
  // The hold is over: probe a thread more, unless the CPUs are still busy. Their idle time is
  // sampled over kIdleSample from now, while this session runs (over the whole hold it would
  // count the time others ran while this session waited, as the engines bench alternates with).
  if (!sampling_) {
    idle_sample_ = idle_();
    sample_start_ = now;
    sampling_ = idle_sample_ >= 0;  // unknown: probe at once
    if (sampling_) return current_;
  } else if (now - sample_start_ < kIdleSample) {
    return current_;
  } else {
    sampling_ = false;
    const double idle = idle_() - idle_sample_;
    const double elapsed_s = std::chrono::duration<double>(now - sample_start_).count();
    if (idle >= 0 && idle < kIdleToProbe * elapsed_s) {
      hold_ = std::min<Clock::duration>(hold_ * 2, kMaxHold);
      start_hold(now);
      return current_;
    }
  }
  return current_ + 1;
}

void ThreadGovernor::start_hold(Clock::time_point now) {
  hold_until_ = now + hold_;
  sampling_ = false;
}

void ThreadGovernor::after_run(int threads, const RegionLoad& load, Clock::time_point now) {
  if (!adapt_) return;
  const bool late = load.late.load(std::memory_order_relaxed) > 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (threads > current_) {  // a probe
    if (late) {
      hold_ = std::min<Clock::duration>(hold_ * 2, kMaxHold);
      start_hold(now);
    } else {
      current_ = threads;
      hold_ = kFirstHold;
      start_hold(now);  // before the next thread up, if any
      last_late_ = {};
    }
  } else if (late && threads == current_ && current_ > 1) {
    if (last_late_ == Clock::time_point{} || now - last_late_ >= kWindow) {
      last_late_ = now;  // a hiccup, unless another follows soon
      return;
    }
    --current_;
    start_hold(now);
    last_late_ = {};
  }
}

}  // namespace hi
