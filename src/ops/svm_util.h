// The kernel functions shared by SVMClassifier and SVMRegressor (ai.onnx.ml): the support
// vectors' similarity to an input row.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op.h"

namespace hi::ops {

struct SvmKernel {
  enum class Type { kLinear, kPoly, kRbf, kSigmoid };
  Type type = Type::kLinear;
  double gamma = 0, coef0 = 0;
  int64_t degree = 0;

  // Reads kernel_type ("LINEAR", "POLY", "RBF", "SIGMOID") and kernel_params ([gamma, coef0,
  // degree]); records an error in ctx for anything else.
  static SvmKernel parse(InitContext& ctx, const std::string& label);
  // k(x, v) over n features.
  double operator()(const double* x, const float* v, int64_t n) const;
};

// Row r of a numeric [N, F] (or [F]) tensor as doubles.
void read_row(const Tensor& x, int64_t r, int64_t features, std::vector<double>* row);

}  // namespace hi::ops
