// Summary statistics of a latency sample, for `hipinfer bench`.
#pragma once

#include <vector>

namespace hi::cli {

struct LatencySummary {
  int runs = 0;
  double total_ms = 0;  // sum of the latencies: the time spent inside the timed calls
  double min_ms = 0, mean_ms = 0, median_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  double stddev_ms = 0;  // sample standard deviation (n - 1); 0 for one run
};

// The p-th percentile (0..100) of `sorted` (ascending, non-empty), interpolating linearly between
// the closest ranks: rank p/100 * (n - 1), as numpy.percentile does by default.
double percentile(const std::vector<double>& sorted, double p);

// All zeros for an empty sample.
LatencySummary summarize(const std::vector<double>& latencies_ms);

// Inferences per second: batch * runs over the time spent in the runs; 0 when nothing was timed.
double throughput_per_s(const LatencySummary& s, long long batch);

}  // namespace hi::cli
