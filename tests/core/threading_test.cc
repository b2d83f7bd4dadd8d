// The thread count of the CPU kernels: the cores a process may use (affinity, cgroup quota), the
// late-start record of parallel regions, and the governor that runs a session on fewer threads
// while other processes take cores.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/threading.h"

namespace hi {
namespace {

using Clock = ThreadGovernor::Clock;

TEST(Threading, CoresUnderQuotaReadsCgroupCpuMax) {
  EXPECT_EQ(cores_under_quota("max 100000", 8), 8);
  EXPECT_EQ(cores_under_quota("150000 100000", 8), 2);  // 1.5 cores: rounded up
  EXPECT_EQ(cores_under_quota("50000 100000", 8), 1);
  EXPECT_EQ(cores_under_quota("100000 100000", 8), 1);
  EXPECT_EQ(cores_under_quota("400000 100000", 2), 2);  // the quota does not add cores
  EXPECT_EQ(cores_under_quota("", 4), 4);               // no file
  EXPECT_EQ(cores_under_quota("abc def", 4), 4);
  EXPECT_EQ(cores_under_quota("0 100000", 4), 4);
  EXPECT_EQ(cores_under_quota("100000 0", 4), 4);
}

TEST(Threading, PhysicalCoresAreWithinTheMachine) {
  const int cores = physical_cores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(static_cast<unsigned>(cores), std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(resolve_threads(0), cores);
  EXPECT_EQ(resolve_threads(3), 3);
}

TEST(Threading, HelpersStartingLateAreCounted) {
  RegionLoad load;
  note_helper_start(&load, steady_ns() - 2 * kLateStartNs);  // the run's first region: a wake-up
  EXPECT_EQ(load.late.load(), 0);
  note_region(&load);
  note_helper_start(&load, steady_ns());  // on time
  EXPECT_EQ(load.late.load(), 0);
  note_helper_start(&load, steady_ns() - 2 * kLateStartNs);  // a time slice after the region began
  EXPECT_EQ(load.late.load(), 1);
  note_helper_start(nullptr, 0);  // no record: nothing happens
}

TEST(Threading, ParallelRegionsCountIntoTheScopedLoad) {
  ThreadScope threads(2);
  RegionLoad load;
  std::atomic<int64_t> covered{0};
  {
    RegionLoadScope scope(&load);
    EXPECT_EQ(current_region_load(), &load);
    parallel_for(1000, 1, [&](int64_t b, int64_t e) { covered += e - b; });
    parallel_for(10, 100, [&](int64_t b, int64_t e) { covered += e - b; });  // serial: not a region
  }
  EXPECT_EQ(current_region_load(), nullptr);
  EXPECT_EQ(covered.load(), 1010);
  EXPECT_EQ(load.regions.load(), 1);
  parallel_for(1000, 1, [](int64_t, int64_t) {});  // outside the scope: not counted
  EXPECT_EQ(load.regions.load(), 1);
}

const RegionLoad& late_load() {
  static RegionLoad load;
  load.regions = 5;
  load.late = 1;
  return load;
}
const RegionLoad kQuiet;

// The governor's view of idle CPU time, set by the tests; unknown (-1) unless a test sets it, so
// that the other tests do not depend on what else this machine is doing.
double g_idle_seconds = -1;
double test_idle() { return g_idle_seconds; }

TEST(ThreadGovernor, DropsAThreadAfterALateRunAndProbesBackWithBackOff) {
  ThreadGovernor g(4, true, test_idle);
  const auto t0 = Clock::now();
  const auto hold = ThreadGovernor::kFirstHold;
  EXPECT_EQ(g.threads_for_run(t0), 4);
  g.after_run(4, kQuiet, t0);
  EXPECT_EQ(g.threads_for_run(t0), 4);
  g.after_run(4, late_load(), t0);
  EXPECT_EQ(g.threads_for_run(t0), 4);                        // one late run is a hiccup
  g.after_run(4, late_load(), t0 + ThreadGovernor::kWindow);  // a second, too long after: another hiccup
  EXPECT_EQ(g.threads_for_run(t0), 4);
  g.after_run(4, late_load(), t0 + ThreadGovernor::kWindow + std::chrono::milliseconds(10));  // two within it: busy
  EXPECT_EQ(g.threads_for_run(t0), 3);
  g.after_run(3, late_load(), t0);
  g.after_run(3, late_load(), t0);  // still busy at 3: 2
  EXPECT_EQ(g.threads_for_run(t0 + hold / 2), 2);
  // After the hold one run probes 3; it is late, so the hold doubles.
  EXPECT_EQ(g.threads_for_run(t0 + hold), 3);
  g.after_run(3, late_load(), t0 + hold);
  EXPECT_EQ(g.threads_for_run(t0 + hold + 2 * hold - std::chrono::milliseconds(1)), 2);
  EXPECT_EQ(g.threads_for_run(t0 + 3 * hold), 3);
  g.after_run(3, kQuiet, t0 + 3 * hold);  // the machine is free again: up, hold reset
  EXPECT_EQ(g.threads_for_run(t0 + 3 * hold), 3);
  EXPECT_EQ(g.threads_for_run(t0 + 4 * hold), 4);
  g.after_run(4, kQuiet, t0 + 4 * hold);
  EXPECT_EQ(g.threads_for_run(t0 + 100 * hold), 4);
}

TEST(ThreadGovernor, HoldStopsDoublingAtItsMaximum) {
  ThreadGovernor g(2, true, test_idle);
  auto now = Clock::now();
  g.after_run(2, late_load(), now);
  g.after_run(2, late_load(), now);
  // Busy for good: every probe is late. The hold doubles from 0.5 s (1, 2, 4, 8 s) and stays at
  // 8 s: a probe comes at most kMaxHold after the last, and from the fourth on not before.
  for (int i = 0; i < 20; ++i) {
    now += ThreadGovernor::kMaxHold;
    ASSERT_EQ(g.threads_for_run(now), 2) << "probe " << i;
    g.after_run(2, late_load(), now);
    const bool held = g.threads_for_run(now + ThreadGovernor::kMaxHold - std::chrono::milliseconds(1)) == 1;
    ASSERT_EQ(held, i >= 3) << "probe " << i;
  }
}

TEST(ThreadGovernor, NoProbeWhileTheCpusStayBusy) {
  using std::chrono::milliseconds;
  constexpr auto kSample = ThreadGovernor::kIdleSample;
  g_idle_seconds = 100;
  ThreadGovernor g(2, true, test_idle);
  auto now = Clock::now();
  g.after_run(2, late_load(), now);
  g.after_run(2, late_load(), now);
  ASSERT_EQ(g.threads_for_run(now), 1);
  // The hold is over: the CPUs' idle time is sampled for kIdleSample first (runs stay on 1).
  now += ThreadGovernor::kFirstHold;
  EXPECT_EQ(g.threads_for_run(now), 1);
  EXPECT_EQ(g.threads_for_run(now + kSample - milliseconds(1)), 1);
  // Idle for a tenth of a CPU over the sample: still busy, no probe; the hold doubles from here.
  g_idle_seconds += 0.1 * 0.05;
  now += kSample;
  EXPECT_EQ(g.threads_for_run(now), 1);
  EXPECT_EQ(g.threads_for_run(now + 2 * ThreadGovernor::kFirstHold - milliseconds(1)), 1);
  // After that hold a CPU is idle all through the sample: probe.
  now += 2 * ThreadGovernor::kFirstHold;
  EXPECT_EQ(g.threads_for_run(now), 1);
  g_idle_seconds += 0.05;
  now += kSample;
  EXPECT_EQ(g.threads_for_run(now), 2);
  g.after_run(2, kQuiet, now);
  EXPECT_EQ(g.threads_for_run(now), 2);
  g_idle_seconds = -1;
}

TEST(Threading, IdleCpuSecondsCountUp) {
  const double before = idle_cpu_seconds();
  if (before < 0) GTEST_SKIP() << "no /proc/stat";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(idle_cpu_seconds(), before);
}

TEST(ThreadGovernor, NeverBelowOneAndFixedWhenNotAdapting) {
  const auto now = Clock::now();
  ThreadGovernor one(1, true, test_idle);
  one.after_run(1, late_load(), now);
  one.after_run(1, late_load(), now);
  EXPECT_EQ(one.threads_for_run(now), 1);
  ThreadGovernor fixed(4, false, test_idle);
  fixed.after_run(4, late_load(), now);
  fixed.after_run(4, late_load(), now);
  EXPECT_EQ(fixed.threads_for_run(now), 4);
  ThreadGovernor two(2, true, test_idle);
  for (int i = 0; i < 4; ++i) two.after_run(2, late_load(), now);
  for (int i = 0; i < 4; ++i) two.after_run(1, late_load(), now);
  EXPECT_EQ(two.threads_for_run(now), 1);
}

TEST(ThreadGovernor, ConcurrentRunsKeepItConsistent) {
  ThreadGovernor g(4, true, test_idle);
  std::vector<std::thread> runners;
  for (int t = 0; t < 4; ++t)
    runners.emplace_back([&g, t] {
      for (int i = 0; i < 2000; ++i) {
        const int threads = g.threads_for_run();
        ASSERT_GE(threads, 1);
        ASSERT_LE(threads, 4);
        g.after_run(threads, (i + t) % 3 == 0 ? late_load() : kQuiet);
      }
    });
  for (auto& r : runners) r.join();
}

}  // namespace
}  // namespace hi
