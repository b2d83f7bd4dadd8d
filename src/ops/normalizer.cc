// Normalizer (ai.onnx.ml opset 1): normalizes each row of X ([N, C], or [C] as one row) into a
// float tensor of the same shape:
//   MAX: Y = X / max(X);  L1: Y = X / sum(|X|);  L2: Y = X / sqrt(sum(X^2)).
// A row whose divisor is zero is copied unchanged, as the spec says. (MAX divides by the
// largest value, as the spec and ONNX Runtime do; the onnx reference uses the largest |X|.)
#include <algorithm>
#include <cmath>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kNormalizerTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);
enum class Norm { kMax, kL1, kL2 };

class NormalizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string norm = ctx.get_string("norm", "MAX");
    if (norm == "MAX") norm_ = Norm::kMax;
    else if (norm == "L1") norm_ = Norm::kL1;
    else if (norm == "L2") norm_ = Norm::kL2;
    else
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": norm must be MAX, L1 or L2, got '",
                      norm, "'");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kNormalizerTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.has_rank() && x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": X must be [N, C] or [C], got ",
                   x.to_string());
    ir::ValueType y = x;
    y.dtype = DType::kFloat32;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kNormalizerTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": X must be [N, C] or [C], got ",
                   x.type_string());
    Tensor& y = ctx.output(0, DType::kFloat32, x.shape());
    const RowView v = rows_of(x.shape());
    std::vector<double> row(static_cast<size_t>(v.features));
    for (int64_t r = 0; r < v.rows; ++r) {
      for (int64_t c = 0; c < v.features; ++c) row[static_cast<size_t>(c)] = x.as_double(r * v.features + c);
      double div = 0;
      if (norm_ == Norm::kMax) {
        div = row.empty() ? 0 : *std::max_element(row.begin(), row.end());
      } else {
        for (double e : row) div += norm_ == Norm::kL1 ? std::abs(e) : e * e;
        if (norm_ == Norm::kL2) div = std::sqrt(div);
      }
      float* out = y.data<float>() + r * v.features;
      for (int64_t c = 0; c < v.features; ++c) {
        const double e = row[static_cast<size_t>(c)];
        out[c] = static_cast<float>(div == 0 ? e : e / div);
      }
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  Norm norm_ = Norm::kMax;
};

}  // namespace

HI_REGISTER_OP(Normalizer, NormalizerOp)

}  // namespace hi::ops
