// Helpers shared by the ai.onnx.ml ops (classifiers, regressors, encoders) and the string ops:
// error messages that name the op, its domain and opset, score post-transforms, and readers for
// numeric attributes that come either as a float list or as a tensor (`*_as_tensor`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/dispatch.h"
#include "ops/op.h"

namespace hi::ops {

// "LinearClassifier (ai.onnx.ml opset 1)": how messages name the op being built or run.
std::string op_label(const ir::Node& node, int64_t opset);

// Unsupported (valid ONNX, not handled) dtype, naming the op, its opset, the tensor and the type.
Status unsupported_type(const ir::Node& node, int64_t opset, const char* what, DType dtype);

// Checks a known input dtype against an allowed set (bit mask over DType codes).
Status check_input_type(const ir::Node& node, int64_t opset, const InferContext& ctx, size_t i, uint64_t allowed,
                        const char* what);

// The score transforms of the classifier and regressor ops (string attribute in the old ops,
// integer code in TreeEnsemble).
enum class PostTransform { kNone = 0, kSoftmax = 1, kLogistic = 2, kSoftmaxZero = 3, kProbit = 4 };
// Parses "NONE", "SOFTMAX", ... ; records an error in ctx for anything else.
PostTransform parse_post_transform(InitContext& ctx, const std::string& name);
// Applies the transform to one row of scores in place.
void apply_post_transform(PostTransform t, float* scores, int64_t n);
void apply_post_transform(PostTransform t, double* scores, int64_t n);
// sqrt(2) * erfinv(2p - 1), the inverse of the standard normal CDF (PROBIT).
double probit(double p);

// A float-list attribute, or its `<name>_as_tensor` twin (a float or double tensor) when that is
// set. Records an error for a tensor of another type.
std::vector<double> get_floats_or_tensor(InitContext& ctx, const std::string& name);
// The elements of a numeric tensor attribute as doubles (float, double, float16 and integer types).
Result<std::vector<double>> tensor_to_doubles(const Tensor& t, const std::string& what);

// The number of elements of an input's feature axis: the last dim of [N, F] (or of [F]).
// Kernels read inputs as [rows, features]; a scalar is one row of one feature.
struct RowView {
  int64_t rows = 0;
  int64_t features = 0;
};
RowView rows_of(const Shape& shape);

}  // namespace hi::ops
