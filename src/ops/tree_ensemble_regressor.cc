// TreeEnsembleRegressor (ai.onnx.ml opsets 1-3): Y[n, t] = aggregate_function (SUM default,
// AVERAGE, MIN, MAX) over the trees of the target_weights for target t at the leaf row n reaches,
// plus base_values[t], then post_transform over the row. X is [N, F] (or [F]; float, double,
// int64, int32); Y is float [N, n_targets]. Opset 3 adds the *_as_tensor (double) attributes.
// Targets no leaf votes for get 0 before base_values (also under MIN and MAX).
#include <algorithm>

#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/tree_ensemble_legacy.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTreeInputTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class TreeEnsembleRegressorOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    const std::string aggregate = ctx.get_string("aggregate_function", "SUM");
    if (aggregate == "SUM") aggregate_ = TreeAggregate::kSum;
    else if (aggregate == "AVERAGE") aggregate_ = TreeAggregate::kAverage;
    else if (aggregate == "MIN") aggregate_ = TreeAggregate::kMin;
    else if (aggregate == "MAX") aggregate_ = TreeAggregate::kMax;
    else
      return ctx.fail(StatusCode::kUnsupported, label_, ": aggregate_function '", aggregate,
                      "' is not SUM, AVERAGE, MIN or MAX");
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    base_values_ = get_floats_or_tensor(ctx, "base_values");
    n_targets_ = ctx.get_int("n_targets", 0);
    HI_RETURN_IF_ERROR(ctx.status());
    if (!ctx.has("n_targets"))
      for (int64_t t : ctx.get_ints("target_ids")) n_targets_ = std::max(n_targets_, t + 1);
    if (n_targets_ < 1)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": n_targets must be >= 1, got ", n_targets_);
    if (!base_values_.empty() && static_cast<int64_t>(base_values_.size()) != n_targets_)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": ", base_values_.size(), " base_values for ", n_targets_,
                      " targets");
    HI_RETURN_IF_ERROR(read_legacy_trees(ctx, label_, "target", n_targets_, &model_));
    max_feature_ = model_.max_feature();
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kTreeInputTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    ir::Dim n;
    if (x.has_rank()) {
      if (x.rank() != 1 && x.rank() != 2)
        return error(StatusCode::kInvalidModel, label_, ": X must be [N, F] or [F], got ", x.to_string());
      n = x.rank() == 1 ? ir::Dim::known(1) : (*x.shape)[0];
      const ir::Dim f = x.shape->back();
      if (f.is_known() && f.value <= max_feature_)
        return error(StatusCode::kInvalidModel, label_, ": X has ", f.value, " features, the trees read feature ",
                     max_feature_);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(n_targets_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kTreeInputTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidArgument, label_, ": X must be [N, F] or [F], got ", x.type_string());
    const RowView v = rows_of(x.shape());
    if (v.features <= max_feature_)
      return error(StatusCode::kInvalidArgument, label_, ": X ", x.type_string(), " has ", v.features,
                   " features, the trees read feature ", max_feature_);
    Tensor& y = ctx.output(0, DType::kFloat32, {v.rows, n_targets_});
    std::vector<double> row(static_cast<size_t>(v.features)), scores(static_cast<size_t>(n_targets_));
    for (int64_t r = 0; r < v.rows; ++r) {
      for (int64_t j = 0; j < v.features; ++j) row[static_cast<size_t>(j)] = x.as_double(r * v.features + j);
      aggregate_trees(model_, row.data(), aggregate_, scores.data(), n_targets_);
      for (size_t t = 0; t < base_values_.size(); ++t) scores[t] += base_values_[t];
      apply_post_transform(transform_, scores.data(), n_targets_);
      for (int64_t t = 0; t < n_targets_; ++t)
        y.data<float>()[r * n_targets_ + t] = static_cast<float>(scores[static_cast<size_t>(t)]);
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string label_;
  TreeModel model_;
  int64_t n_targets_ = 0;
  int64_t max_feature_ = -1;
  std::vector<double> base_values_;
  TreeAggregate aggregate_ = TreeAggregate::kSum;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(TreeEnsembleRegressor, TreeEnsembleRegressorOp)

}  // namespace hi::ops
