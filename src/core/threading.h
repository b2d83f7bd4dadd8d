// Intra-op threads for the CPU kernels, of the reference ops and of the CPU backend alike. oneDNN
// (Debian's build) runs on OpenMP, so our own kernels use OpenMP too: one pool, no oversubscription.
//
// A fork-join region waits for its slowest thread, so on a machine where other processes keep
// cores busy one descheduled thread stalls every region for a scheduler time slice. Regions
// therefore note helpers that start late (RegionLoad), and a session's ThreadGovernor runs its
// next runs on fewer threads while that happens, probing the full count again with a back-off.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string_view>

namespace hi {

// Physical cores this process may run on (its affinity mask; hyper-threads not counted), capped
// by its cgroup's CPU quota (cpu.max, or cpu.cfs_quota_us in cgroup v1), rounded up; at least 1.
int physical_cores();
// `requested` threads, or physical_cores() when it is 0 or negative.
int resolve_threads(int requested);
// Cores a cgroup v2 `cpu.max` line ("max 100000", "150000 100000") allows: `cores` when
// unlimited or unreadable, else quota / period rounded up, at least 1.
int cores_under_quota(std::string_view cpu_max, int cores);

// Sets the thread count for parallel regions started by the calling thread, and restores the
// previous count when it goes out of scope. OpenMP keeps this setting per thread, so sessions
// with different thread counts can run side by side on different threads.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
};

// Threads a parallel region started now would get.
int current_threads();

// Idle (and I/O wait) time of the CPUs in this process's affinity mask since boot, in
// CPU-seconds, from /proc/stat; -1 when it cannot be read.
double idle_cpu_seconds();

// The parallel regions of one run and how many of them had a helper thread start late: one
// that was not running when the region began (another process had its core).
struct RegionLoad {
  std::atomic<int> regions{0};
  std::atomic<int> late{0};
  int full_threads = 0;  // the count the session asked for (the run may use fewer)
};
// A helper that starts this long after its region began was descheduled; waking a sleeping
// pool thread takes tens of microseconds, a scheduler time slice milliseconds.
inline constexpr int64_t kLateStartNs = 1'000'000;

// Makes parallel regions started by the calling thread count into `load` (null: none) until
// it goes out of scope.
class RegionLoadScope {
 public:
  explicit RegionLoadScope(RegionLoad* load);
  ~RegionLoadScope();
  RegionLoadScope(const RegionLoadScope&) = delete;
  RegionLoadScope& operator=(const RegionLoadScope&) = delete;

 private:
  RegionLoad* previous_;
};
RegionLoad* current_region_load();

inline int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
// Called by each helper thread (not the one that started the region) as it begins its share.
// The run's first region does not count: it may wake threads, and CPUs, that slept since the
// last run (a halted virtual CPU takes milliseconds), which a server between requests does.
inline void note_helper_start(RegionLoad* load, int64_t region_start_ns) {
  if (load && load->regions.load(std::memory_order_relaxed) > 0 && steady_ns() - region_start_ns > kLateStartNs)
    load->late.fetch_add(1, std::memory_order_relaxed);
}
inline void note_region(RegionLoad* load) {
  if (load) load->regions.fetch_add(1, std::memory_order_relaxed);
}

// The thread count of a session's runs. It starts at the full count. Two runs with a late helper
// start within kWindow make the next runs use one thread fewer (down to 1); one alone is a
// hiccup (this VM deschedules a thread for a few milliseconds every few seconds even when idle).
// After a hold one run probes a thread more; if that run is late too, the hold doubles (up to
// kMaxHold), else the count goes up and the hold is reset. A probe costs a stalled run while the
// machine is still busy, so there is none while the CPUs this process may use are idle for less
// than kIdleToProbe of a CPU over the kIdleSample after the hold (/proc/stat): the hold doubles
// instead. Safe to call from concurrent runs.
class ThreadGovernor {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kWindow{1000};
  static constexpr std::chrono::milliseconds kFirstHold{500};
  static constexpr std::chrono::milliseconds kMaxHold{8000};
  static constexpr double kIdleToProbe = 0.5;
  static constexpr std::chrono::milliseconds kIdleSample{50};
  // Idle CPU-seconds so far, summed over the CPUs this process may use; negative: unknown.
  using IdleClock = double (*)();

  // `adapt` false: always `threads`. `idle` is read when a hold ends (tests pass their own).
  ThreadGovernor(int threads, bool adapt, IdleClock idle = idle_cpu_seconds);
  // Threads for the run about to start.
  int threads_for_run(Clock::time_point now = Clock::now());
  // What the run that used `threads` saw.
  void after_run(int threads, const RegionLoad& load, Clock::time_point now = Clock::now());
  int full() const { return full_; }

 private:
  const int full_;
  const bool adapt_;
  std::mutex mu_;
  int current_;
  Clock::time_point hold_until_{};
  Clock::duration hold_ = kFirstHold;
  Clock::time_point last_late_{};  // {}: no late run at this count yet
  IdleClock idle_;
  bool sampling_ = false;  // the hold is over and the CPUs' idle time is being sampled
  Clock::time_point sample_start_{};
  double idle_sample_ = -1;  // idle_() at sample_start_
  void start_hold(Clock::time_point now);
};

// Runs f(begin, end) over [0, n) split into contiguous chunks, one per thread; serially when
// the work is smaller than `grain` elements (a parallel region costs a few microseconds).
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  const int threads = current_threads();
  if (threads <= 1 || n <= grain) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  const int64_t chunks = n / grain < threads ? (n + grain - 1) / grain : threads;
  RegionLoad* load = current_region_load();
  const int64_t start_ns = load ? steady_ns() : 0;
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t t = 0; t < chunks; ++t) {
    if (t > 0) note_helper_start(load, start_ns);  // static schedule: chunk t is thread t's
    const int64_t begin = n * t / chunks, end = n * (t + 1) / chunks;
    if (begin < end) f(begin, end);
  }
  note_region(load);
}

}  // namespace hi
