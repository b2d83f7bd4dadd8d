// The one-off output check; see bench_compare.h.
#include "bench_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hi::cli {
namespace {

OutputDiff compare_one(const std::string& name, const Tensor& ours, const Tensor& peer, double tolerance) {
  OutputDiff d;
  d.name = name;
  d.elements = peer.numel();
  if (ours.shape() != peer.shape()) {
    d.problem = "shape " + shape_to_string(ours.shape()) + " here, " + shape_to_string(peer.shape()) + " there";
    return d;
  }
  if (ours.dtype() != peer.dtype()) {
    d.problem = std::string("dtype ") + dtype_name(ours.dtype()) + " here, " + dtype_name(peer.dtype()) + " there";
    return d;
  }
  if (ours.dtype() == DType::kString) {
    int64_t differ = 0;
    for (int64_t i = 0; i < ours.numel(); ++i) differ += ours.strings()[i] != peer.strings()[i];
    d.max_abs_error = d.max_rel_error = differ ? 1 : 0;
    d.match = differ == 0;
    return d;
  }
  double scale = 0;
  for (int64_t i = 0; i < peer.numel(); ++i) {
    const double a = ours.as_double(i), b = peer.as_double(i);
    if (std::isfinite(b)) scale = std::max(scale, std::fabs(b));
    if (std::isfinite(a) && std::isfinite(b)) {
      d.max_abs_error = std::max(d.max_abs_error, std::fabs(a - b));
    } else if (!(std::isnan(a) && std::isnan(b)) && a != b) {
      ++d.nonfinite_mismatches;  // equal infinities and NaN against NaN agree
    }
  }
  if (scale > 0) d.max_rel_error = d.max_abs_error / scale;
  else d.max_rel_error = d.max_abs_error > 0 ? std::numeric_limits<double>::infinity() : 0;
  const double allowed = dtype_is_float(ours.dtype()) ? tolerance : 0;
  d.match = d.nonfinite_mismatches == 0 && d.max_rel_error <= allowed;
  return d;
}

}  // namespace

double output_tolerance(const std::string& precision) { return precision == "bf16" ? 5e-2 : 1e-3; }

std::vector<OutputDiff> compare_outputs(const TensorMap& ours, const std::vector<std::pair<std::string, Tensor>>& peer,
                                        double tolerance) {
  std::vector<OutputDiff> diffs;
  for (const auto& [name, tensor] : peer) {
    auto it = ours.find(name);
    if (it == ours.end()) {
      OutputDiff d;
      d.name = name;
      d.problem = "hipinfer has no output of that name";
      diffs.push_back(d);
      continue;
    }
    diffs.push_back(compare_one(name, it->second, tensor, tolerance));
  }
  return diffs;
}

}  // namespace hi::cli
