#include "bench_accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "model_inputs.h"

namespace hi::cli {
namespace {

int64_t argmax_row(const Tensor& t, int64_t row, int64_t n) {
  int64_t best = 0;
  for (int64_t j = 1; j < n; ++j)
    if (t.as_double(row * n + j) > t.as_double(row * n + best)) best = j;
  return best;
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
    HI_ASSIGN_OR_RETURN(TensorMap inputs, make_model_inputs(*reference, input_specs, batch, seed + static_cast<uint64_t>(s)));
    HI_ASSIGN_OR_RETURN(TensorMap want, reference->run(inputs));
    HI_ASSIGN_OR_RETURN(TensorMap got, reduced.run(inputs));
    for (const auto& [name, w] : want) {
      if (!dtype_is_float(w.dtype())) continue;
      auto g = got.find(name);
      if (g == got.end() || g->second.shape() != w.shape())
        return error(StatusCode::kInternal, "output '", name, "' differs in shape between precisions");
      auto [it, added] = index.emplace(name, report.outputs.size());
      if (added) report.outputs.push_back({name});
      OutputAccuracy& a = report.outputs[it->second];
      double scale = 0;
      for (int64_t i = 0; i < w.numel(); ++i) scale = std::max(scale, std::fabs(w.as_double(i)));
      for (int64_t i = 0; i < w.numel(); ++i) {
        const double d = std::fabs(w.as_double(i) - g->second.as_double(i));
        a.max_abs_error = std::max(a.max_abs_error, d);
        if (scale > 0) a.max_rel_error = std::max(a.max_rel_error, d / scale);
      }
      if (w.rank() == 2 && w.dim(1) > 1) {
        for (int64_t r = 0; r < w.dim(0); ++r)
          a.top1_agree += argmax_row(w, r, w.dim(1)) == argmax_row(g->second, r, w.dim(1)) ? 1 : 0;
        a.rows += w.dim(0);
      }
    }
  }
  return report;
}

void print_accuracy(std::FILE* out, const std::string& precision, const AccuracyReport& r) {
  std::fprintf(out, "\n  accuracy guard: %s against float32 on %d random inputs\n", precision.c_str(), r.samples);
  for (const auto& a : r.outputs) {
    std::fprintf(out, "    %-28s max abs %-10.3g max rel %-10.3g", a.name.c_str(), a.max_abs_error, a.max_rel_error);
    if (a.rows > 0)
      std::fprintf(out, " top-1 agrees %lld/%lld (%.1f %%)", static_cast<long long>(a.top1_agree),
                   static_cast<long long>(a.rows), 100.0 * static_cast<double>(a.top1_agree) / static_cast<double>(a.rows));
    std::fprintf(out, "\n");
  }
}

}  // namespace hi::cli
