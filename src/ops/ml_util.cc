// Shared pieces of the ai.onnx.ml ops: messages, post-transforms, attribute readers.
#include "ops/ml_util.h"

#include <algorithm>
#include <cmath>

#include "ops/dispatch.h"

namespace hi::ops {

std::string op_label(const ir::Node& node, int64_t opset) {
  return str(node.op_type, " (", node.domain.empty() ? "ai.onnx" : node.domain, " opset ", opset, ")");
}

Status unsupported_type(const ir::Node& node, int64_t opset, const char* what, DType dtype) {
  return error(StatusCode::kUnsupported, op_label(node, opset), " does not support ", what, " of type ",
               dtype_name(dtype));
}

Status check_input_type(const ir::Node& node, int64_t opset, const InferContext& ctx, size_t i, uint64_t allowed,
                        const char* what) {
  const DType t = ctx.input_type(i).dtype;
  if (t == DType::kUndefined || in_set(allowed, t)) return Status::ok();
  return unsupported_type(node, opset, what, t);
}

PostTransform parse_post_transform(InitContext& ctx, const std::string& name) {
  if (name == "NONE") return PostTransform::kNone;
  if (name == "SOFTMAX") return PostTransform::kSoftmax;
  if (name == "LOGISTIC") return PostTransform::kLogistic;
  if (name == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (name == "PROBIT") return PostTransform::kProbit;
  (void)ctx.fail(StatusCode::kUnsupported, op_label(ctx.node(), ctx.opset()), ": post_transform '", name,
                 "' is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT");
  return PostTransform::kNone;
}

// ONNX Runtime and the onnx reference both use Winitzki's closed-form approximation of erfinv
// (a = 0.147, relative error below 2e-3); the same formula keeps PROBIT scores comparable.
double probit(double p) {
  const double x = 2 * p - 1;
  const double sign = x < 0 ? -1.0 : 1.0;
  const double one_minus_x2 = (1 - x) * (1 + x);
  if (one_minus_x2 == 0) return 0;
  constexpr double kA = 0.147;
  constexpr double kPi = 3.14159265358979323846;
  const double ln = std::log(one_minus_x2);
  const double t = 2 / (kPi * kA) + ln / 2;
  return 1.41421356 * sign * std::sqrt(std::sqrt(t * t - ln / kA) - t);
}

namespace {

template <typename T>
void post_transform(PostTransform t, T* s, int64_t n) {
  switch (t) {
    case PostTransform::kNone: return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < n; ++i) {
        // 1 / (1 + e^-x) without overflow for large |x|.
        const T e = std::exp(-std::abs(s[i]));
        s[i] = s[i] >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
      }
      return;
    case PostTransform::kSoftmax: {
      if (n == 0) return;
      const T m = *std::max_element(s, s + n);
      T sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += (s[i] = std::exp(s[i] - m));
      for (int64_t i = 0; i < n; ++i) s[i] /= sum;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      // Softmax over the nonzero scores; zero scores stay zero (all zero: uniform 0.5, as
      // ONNX Runtime does).
      if (n == 0) return;
      const T m = *std::max_element(s, s + n);
      T sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        s[i] = std::abs(s[i]) > T(1e-7) ? std::exp(s[i] - m) : s[i] * std::exp(-m);
        sum += s[i];
      }
      for (int64_t i = 0; i < n; ++i) s[i] = sum == 0 ? T(0.5) : s[i] / sum;
      return;
    }
    case PostTransform::kProbit:
      for (int64_t i = 0; i < n; ++i) s[i] = static_cast<T>(probit(s[i]));
      return;
  }
}

}  // namespace

void apply_post_transform(PostTransform t, float* scores, int64_t n) { post_transform(t, scores, n); }
void apply_post_transform(PostTransform t, double* scores, int64_t n) { post_transform(t, scores, n); }

Result<std::vector<double>> tensor_to_doubles(const Tensor& t, const std::string& what) {
  if (!dtype_is_float(t.dtype()) && !dtype_is_integer(t.dtype()))
    return error(StatusCode::kInvalidModel, "attribute '", what, "' must be a numeric tensor, got ", t.type_string());
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.as_double(i);
  return v;
}

std::vector<double> get_floats_or_tensor(InitContext& ctx, const std::string& name) {
  if (ctx.has(name + "_as_tensor")) {
    const Tensor* t = ctx.get_tensor(name + "_as_tensor");
    if (!t) return {};
    auto v = tensor_to_doubles(*t, name + "_as_tensor");
    if (!v.is_ok()) {
      (void)ctx.fail(v.status().code(), v.status().message());
      return {};
    }
    return v.value();
  }
  const std::vector<float> f = ctx.get_floats(name);
  return {f.begin(), f.end()};
}

RowView rows_of(const Shape& shape) {
  if (shape.empty()) return {1, 1};
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  return {rows, shape.back()};
}

}  // namespace hi::ops
