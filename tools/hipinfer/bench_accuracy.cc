#include "bench_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "bench_stats.h"
#include "model_inputs.h"

namespace hi::cli {
namespace {

// The row's best and second-best columns.
std::pair<int64_t, int64_t> top_two(const Tensor& t, int64_t row, int64_t n) {
  int64_t best = 0, second = -1;
  for (int64_t j = 1; j < n; ++j) {
    const double v = t.as_double(row * n + j);
    if (v > t.as_double(row * n + best)) {
      second = best;
      best = j;
    } else if (second < 0 || v > t.as_double(row * n + second)) {
      second = j;
    }
  }
  return {best, second};
}

}  // namespace

Result<AccuracyReport> accuracy_guard(const std::string& model, const Session& reduced, const SessionOptions& options,
                                      const std::vector<std::string>& input_specs, int64_t batch, uint64_t seed,
                                      int samples) {
  SessionOptions fp32 = options;
  fp32.precision = "fp32";
  HI_ASSIGN_OR_RETURN(auto reference, Session::create(model, fp32));
  AccuracyReport report;
  report.samples = samples;
  std::map<std::string, size_t> index;
  for (int s = 0; s < samples; ++s) {
    HI_ASSIGN_OR_RETURN(TensorMap inputs,
                        make_model_inputs(*reference, input_specs, batch, seed + static_cast<uint64_t>(s)));
    HI_ASSIGN_OR_RETURN(TensorMap want, reference->run(inputs));
    HI_ASSIGN_OR_RETURN(TensorMap got, reduced.run(inputs));
    for (const auto& [name, w] : want) {
      if (!dtype_is_float(w.dtype())) continue;
      auto g = got.find(name);
      if (g == got.end() || g->second.shape() != w.shape())
        return error(StatusCode::kInternal, "output '", name, "' differs in shape between precisions");
      auto [it, added] = index.emplace(name, report.outputs.size());
      if (added) {
        report.outputs.emplace_back();
        report.outputs.back().name = name;
      }
      add_to_accuracy(w, g->second, report.outputs[it->second]);
    }
  }
  return report;
}

void add_to_accuracy(const Tensor& want, const Tensor& got, OutputAccuracy& a) {
  double scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i) scale = std::max(scale, std::fabs(want.as_double(i)));
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double d = std::fabs(want.as_double(i) - got.as_double(i));
    a.max_abs_error = std::max(a.max_abs_error, d);
    if (scale > 0) a.max_rel_error = std::max(a.max_rel_error, d / scale);
  }
  if (want.rank() != 2 || want.dim(1) < 2) return;
  const int64_t n = want.dim(1);
  for (int64_t r = 0; r < want.dim(0); ++r) {
    const auto [best, second] = top_two(want, r, n);
    const bool agree = best == top_two(got, r, n).first;
    a.rows += 1;
    a.top1_agree += agree ? 1 : 0;
    if (n < OutputAccuracy::kLeadClasses) continue;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += want.as_double(r * n + j);
    mean /= static_cast<double>(n);
    for (int64_t j = 0; j < n; ++j) var += std::pow(want.as_double(r * n + j) - mean, 2);
    const double sd = std::sqrt(var / static_cast<double>(n));
    const double gap = want.as_double(r * n + best) - want.as_double(r * n + second);
    const double lead = sd > 0 ? gap / sd : (gap > 0 ? INFINITY : 0.0);
    a.leads.push_back(lead);
    if (lead >= OutputAccuracy::kClearLead) {
      a.clear_rows += 1;
      a.clear_agree += agree ? 1 : 0;
    }
  }
}

double median_lead(const OutputAccuracy& a) {
  if (a.leads.empty()) return 0;
  std::vector<double> sorted = a.leads;
  std::sort(sorted.begin(), sorted.end());
  return percentile(sorted, 50);
}

void print_accuracy(std::FILE* out, const std::string& precision, const AccuracyReport& r) {
  std::fprintf(out, "\n  accuracy guard: %s against float32 on %d random inputs\n", precision.c_str(), r.samples);
  for (const auto& a : r.outputs) {
    std::fprintf(out, "    %-28s max abs %-10.3g max rel %-10.3g", a.name.c_str(), a.max_abs_error, a.max_rel_error);
    if (a.rows > 0)
      std::fprintf(out, " top-1 agrees %lld/%lld (%.1f %%)", static_cast<long long>(a.top1_agree),
                   static_cast<long long>(a.rows),
                   100.0 * static_cast<double>(a.top1_agree) / static_cast<double>(a.rows));
    std::fprintf(out, "\n");
    if (a.leads.empty()) continue;
    std::fprintf(out, "    %-28s float32's top-1 leads the second by a median %.3g sd of the row; ", "",
                 median_lead(a));
    if (a.clear_rows == 0)
      std::fprintf(
          out, "none by %.1f sd: the classes are near ties on these inputs, and top-1 agreement measures the ties\n",
          OutputAccuracy::kClearLead);
    else
      std::fprintf(out, "where it leads by %.1f sd or more, top-1 agrees %lld/%lld\n", OutputAccuracy::kClearLead,
                   static_cast<long long>(a.clear_agree), static_cast<long long>(a.clear_rows));
  }
}

}  // namespace hi::cli
