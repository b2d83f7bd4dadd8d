// The kernel functions shared by SVMClassifier and SVMRegressor (ai.onnx.ml): the support
// vectors' similarity to an input row.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/dispatch.h"
#include "ops/ml_util.h"
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

// The input types both SVM ops take.
constexpr uint64_t kSvmTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

// Build time: X (input 0) is [N, F] or [F] with F = `features` where known; returns N (1 for [F]).
Result<ir::Dim> svm_rows(const InferContext& ctx, int64_t opset, const std::string& label, int64_t features);
// Run time: the same checks on the tensor; returns it as [rows, features].
Result<RowView> svm_input(const RunContext& ctx, int64_t opset, const std::string& label, int64_t features);

// Row r of a numeric [N, F] (or [F]) tensor as doubles.
void read_row(const Tensor& x, int64_t r, int64_t features, std::vector<double>* row);

}  // namespace hi::ops
