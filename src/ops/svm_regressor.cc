// SVMRegressor (ai.onnx.ml opset 1): Y[n] = sum_j coefficients[j] * k(X[n], support_vectors[j])
// + rho[0] over the n_supports support vectors; without support vectors, the linear
// dot(X[n], coefficients) + rho[0]. one_class gives the sign (+1 / -1) instead. X is float,
// double, int64 or int32 ([N, F] or [F]); Y is float [N, 1]. Computed in double.
#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/svm_util.h"

namespace hi::ops {
namespace {

class SvmRegressorOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    kernel_ = SvmKernel::parse(ctx, label_);
    coefficients_ = ctx.get_floats("coefficients");
    support_vectors_ = ctx.get_floats("support_vectors");
    rho_ = ctx.get_floats("rho");
    supports_ = ctx.get_int("n_supports", 0);
    one_class_ = ctx.get_int("one_class", 0) != 0;
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    HI_RETURN_IF_ERROR(ctx.status());
    if (rho_.size() != 1) return error(StatusCode::kInvalidModel, label_, ": rho must hold 1 value, got ", rho_.size());
    if (supports_ < 0) return error(StatusCode::kInvalidModel, label_, ": n_supports must be >= 0, got ", supports_);
    if (supports_ > 0) {
      if (static_cast<int64_t>(coefficients_.size()) != supports_ ||
          support_vectors_.size() % static_cast<size_t>(supports_) != 0)
        return error(StatusCode::kInvalidModel, label_, ": ", supports_, " support vectors need ", supports_,
                     " coefficients and a multiple of ", supports_, " support_vectors values, got ",
                     coefficients_.size(), " and ", support_vectors_.size());
      features_ = static_cast<int64_t>(support_vectors_.size()) / supports_;
    } else {
      features_ = static_cast<int64_t>(coefficients_.size());  // the linear form: one weight per feature
      kernel_.type = SvmKernel::Type::kLinear;
    }
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_ASSIGN_OR_RETURN(const ir::Dim n, svm_rows(ctx, opset_, label_, features_));
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(1)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(const RowView v, svm_input(ctx, opset_, label_, features_));
    Tensor& y = ctx.output(0, DType::kFloat32, {v.rows, 1});
    std::vector<double> row;
    for (int64_t r = 0; r < v.rows; ++r) {
      read_row(x, r, v.features, &row);
      double s = rho_[0];
      if (supports_ > 0) {
        for (int64_t j = 0; j < supports_; ++j)
          s += coefficients_[static_cast<size_t>(j)] *
               kernel_(row.data(), support_vectors_.data() + j * features_, features_);
      } else {
        s += kernel_(row.data(), coefficients_.data(), features_);
      }
      float out = static_cast<float>(one_class_ ? (s > 0 ? 1.0 : -1.0) : s);
      apply_post_transform(transform_, &out, 1);
      y.data<float>()[r] = out;
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string label_;
  SvmKernel kernel_;
  std::vector<float> coefficients_, support_vectors_, rho_;
  int64_t supports_ = 0, features_ = 0;
  bool one_class_ = false;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(SVMRegressor, SvmRegressorOp)

}  // namespace hi::ops
