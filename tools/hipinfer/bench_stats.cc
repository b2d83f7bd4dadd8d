// Summary statistics of a latency sample; see bench_stats.h.
#include "bench_stats.h"

#include <algorithm>
#include <cmath>

namespace hi::cli {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

LatencySummary summarize(const std::vector<double>& latencies_ms) {
  LatencySummary s;
  if (latencies_ms.empty()) return s;
  std::vector<double> sorted = latencies_ms;
  std::sort(sorted.begin(), sorted.end());
  s.runs = static_cast<int>(sorted.size());
  for (double v : sorted) s.total_ms += v;
  s.mean_ms = s.total_ms / static_cast<double>(s.runs);
  s.min_ms = sorted.front();
  s.max_ms = sorted.back();
  s.median_ms = percentile(sorted, 50);
  s.p90_ms = percentile(sorted, 90);
  s.p99_ms = percentile(sorted, 99);
  if (s.runs > 1) {
    double sq = 0;
    for (double v : sorted) sq += (v - s.mean_ms) * (v - s.mean_ms);
    s.stddev_ms = std::sqrt(sq / static_cast<double>(s.runs - 1));
  }
  return s;
}

double throughput_per_s(const LatencySummary& s, long long batch) {
  if (s.total_ms <= 0) return 0;
  return static_cast<double>(batch) * static_cast<double>(s.runs) / (s.total_ms / 1000.0);
}

}  // namespace hi::cli
