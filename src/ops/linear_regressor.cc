// LinearRegressor (ai.onnx.ml opset 1): Y[n, t] = sum_f X[n, f] * coefficients[t * F + f]
// + intercepts[t], for `targets` targets, then the post_transform over each row. X is [N, F]
// (or [F], one row); Y is float [N, targets].
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kLinearTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class LinearRegressorOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    targets_ = ctx.get_int("targets", 1);
    coefficients_ = ctx.get_floats("coefficients");
    intercepts_ = ctx.get_floats("intercepts");
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    HI_RETURN_IF_ERROR(ctx.status());
    if (targets_ < 1) return ctx.fail(StatusCode::kInvalidModel, label_, ": targets must be >= 1, got ", targets_);
    if (coefficients_.size() % static_cast<size_t>(targets_) != 0)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": ", coefficients_.size(), " coefficients do not split into ",
                      targets_, " targets");
    if (!intercepts_.empty() && static_cast<int64_t>(intercepts_.size()) != targets_)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": ", intercepts_.size(), " intercepts for ", targets_,
                      " targets");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kLinearTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    ir::Dim n;
    if (x.has_rank()) {
      if (x.rank() != 1 && x.rank() != 2)
        return error(StatusCode::kInvalidModel, label_, ": X must be [N, F] or [F], got ", x.to_string());
      const ir::Dim f = x.shape->back();
      if (f.is_known() && f.value * targets_ != static_cast<int64_t>(coefficients_.size()))
        return error(StatusCode::kInvalidModel, label_, ": X has ", f.value, " features, the ", coefficients_.size(),
                     " coefficients fit ", static_cast<int64_t>(coefficients_.size()) / targets_);
      n = x.rank() == 1 ? ir::Dim::known(1) : (*x.shape)[0];
    }
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(targets_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kLinearTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidArgument, label_, ": X must be [N, F] or [F], got ", x.type_string());
    const RowView v = rows_of(x.shape());
    if (v.features * targets_ != static_cast<int64_t>(coefficients_.size()))
      return error(StatusCode::kInvalidArgument, label_, ": X ", x.type_string(), " has ", v.features,
                   " features, the coefficients fit ", static_cast<int64_t>(coefficients_.size()) / targets_);
    Tensor& y = ctx.output(0, DType::kFloat32, {v.rows, targets_});
    for (int64_t r = 0; r < v.rows; ++r) {
      float* out = y.data<float>() + r * targets_;
      for (int64_t t = 0; t < targets_; ++t) {
        double acc = intercepts_.empty() ? 0.0 : intercepts_[static_cast<size_t>(t)];
        for (int64_t f = 0; f < v.features; ++f)
          acc += x.as_double(r * v.features + f) * coefficients_[static_cast<size_t>(t * v.features + f)];
        out[t] = static_cast<float>(acc);
      }
      apply_post_transform(transform_, out, targets_);
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string label_;
  int64_t targets_ = 1;
  std::vector<float> coefficients_, intercepts_;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(LinearRegressor, LinearRegressorOp)

}  // namespace hi::ops
