#include "ops/layer_normalization.h"

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kStashTypes = bit(DType::kFloat32) | bit(DType::kBFloat16);

}  // namespace

Status LayerNormalizationOp::init(InitContext& ctx) {
  axis_ = ctx.get_int("axis", -1);
  epsilon_ = ctx.get_float("epsilon", 1e-5f);
  const int64_t stash = ctx.get_int("stash_type", 1);
  stash_ = static_cast<DType>(stash);
  if (stash != static_cast<int64_t>(DType::kFloat32) && stash != static_cast<int64_t>(DType::kBFloat16))
    return ctx.fail(StatusCode::kInvalidModel, "stash_type must be 1 (float32) or 16 (bfloat16), got ", stash);
  return ctx.status();
}

Status LayerNormalizationOp::infer(InferContext& ctx) const {
  HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3, 3));
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    const DType t = ctx.input_type(i).dtype;
    if (t != DType::kUndefined && x.dtype != DType::kUndefined && t != x.dtype)
      return error(StatusCode::kInvalidModel, i == 1 ? "Scale" : "B", " is ", dtype_name(t), " but X is ",
                   dtype_name(x.dtype));
  }
  ctx.set_output_type(0, x);
  if (!x.has_rank()) {
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, ir::ValueType::tensor_unknown_shape(stash_));
    return Status::ok();
  }
  HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidModel));
  const std::vector<ir::Dim> row(x.shape->begin() + static_cast<int64_t>(a), x.shape->end());
  HI_RETURN_IF_ERROR(check_unidirectional(ctx.input_type(1), row, "Scale", "the normalized shape"));
  if (ctx.has_input(2)) HI_RETURN_IF_ERROR(check_unidirectional(ctx.input_type(2), row, "B", "the normalized shape"));
  std::vector<ir::Dim> stat(x.shape->begin(), x.shape->begin() + static_cast<int64_t>(a));
  stat.resize(x.shape->size(), ir::Dim::known(1));
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, ir::ValueType::tensor(stash_, stat));
  return Status::ok();
}

Result<LayerNormalizationOp::Rows> LayerNormalizationOp::check_rows(const RunContext& ctx) const {
  const Tensor& x = ctx.in(0);
  const Tensor& scale = ctx.in(1);
  const Tensor* bias = ctx.input(2);
  HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidArgument));
  const Shape row_shape(x.shape().begin() + static_cast<int64_t>(a), x.shape().end());
  HI_RETURN_IF_ERROR(check_unidirectional(scale.shape(), row_shape, "Scale", "the normalized shape"));
  if (bias) HI_RETURN_IF_ERROR(check_unidirectional(bias->shape(), row_shape, "B", "the normalized shape"));
  if (scale.dtype() != x.dtype() || (bias && bias->dtype() != x.dtype()))
    return error(StatusCode::kInvalidArgument, "Scale ", scale.type_string(), " and B ",
                 bias ? bias->type_string() : "(none)", " must have X's type ", dtype_name(x.dtype()));
  const int64_t n = shape_numel(row_shape);
  const int64_t rows =
      n == 0 ? shape_numel(Shape(x.shape().begin(), x.shape().begin() + static_cast<int64_t>(a))) : x.numel() / n;
  return Rows{a, rows, n};
}

bool LayerNormalizationOp::stats_wanted(const RunContext& ctx) const {
  return (ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty()) ||
         (ctx.num_outputs() > 2 && !ctx.node().outputs[2].empty());
}

Status LayerNormalizationOp::run(RunContext& ctx) const {
  const Tensor& x = ctx.in(0);
  const Tensor& scale = ctx.in(1);
  const Tensor* bias = ctx.input(2);
  HI_ASSIGN_OR_RETURN(const Rows geo, check_rows(ctx));
  const size_t a = geo.axis;
  const int64_t n = geo.n, rows = geo.rows;
  const Shape row_shape(x.shape().begin() + static_cast<int64_t>(a), x.shape().end());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  Shape stat_shape(x.shape().begin(), x.shape().begin() + static_cast<int64_t>(a));
  stat_shape.resize(x.shape().size(), 1);
  std::vector<double> means(static_cast<size_t>(rows)), inv_stds(static_cast<size_t>(rows));
  // Scale and B as doubles over the whole row shape.
  std::vector<double> s(static_cast<size_t>(n)), b(static_cast<size_t>(n), 0.0);
  const BroadcastIndex is(row_shape, scale.shape());
  for (int64_t j = 0; j < n; ++j) s[static_cast<size_t>(j)] = scale.as_double(is.offset(j));
  if (bias) {
    const BroadcastIndex ib(row_shape, bias->shape());
    for (int64_t j = 0; j < n; ++j) b[static_cast<size_t>(j)] = bias->as_double(ib.offset(j));
  }
  const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = px + r * n;
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += static_cast<double>(xr[j]);
      const double mean = sum / static_cast<double>(n);
      double sq = 0;
      for (int64_t j = 0; j < n; ++j) sq += (static_cast<double>(xr[j]) - mean) * (static_cast<double>(xr[j]) - mean);
      const double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(n) + static_cast<double>(epsilon_));
      for (int64_t j = 0; j < n; ++j) {
        const size_t ju = static_cast<size_t>(j);
        py[r * n + j] = static_cast<T>((static_cast<double>(xr[j]) - mean) * inv_std * s[ju] + b[ju]);
      }
      means[static_cast<size_t>(r)] = mean;
      inv_stds[static_cast<size_t>(r)] = inv_std;
    }
  });
  if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
  const std::vector<double>* stats[3] = {nullptr, &means, &inv_stds};
  for (size_t i = 1; i < ctx.num_outputs() && i < 3; ++i) {
    if (ctx.node().outputs[i].empty()) continue;
    Tensor& out = ctx.output(i, stash_, stat_shape);
    dispatch<kStashTypes>(stash_, [&]<typename U>() {
      for (size_t r = 0; r < stats[i]->size(); ++r) out.data<U>()[r] = static_cast<U>((*stats[i])[r]);
    });
  }
  return Status::ok();
}

Result<size_t> LayerNormalizationOp::checked_axis(int64_t rank, StatusCode code) const {
  if (rank == 0 || axis_ < -rank || axis_ >= rank)
    return error(code, "axis ", axis_, " is out of range for rank ", rank, " (accepted: [", -rank, ", ", rank - 1,
                 "])");
  return static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
}

HI_REGISTER_OP(LayerNormalization, LayerNormalizationOp)
// The same op for graphs whose ai.onnx opset predates LayerNormalization (17): what
// fuse_layer_norm makes of LayerNorm written out in elementwise ops there.
HI_REGISTER_OP(LayerNormalizationInternal, LayerNormalizationOp)

}  // namespace hi::ops
