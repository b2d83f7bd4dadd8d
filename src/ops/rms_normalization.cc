// RMSNormalization (opset 23): each row over dims [axis, rank) is divided by its root mean
// square, y = x / sqrt(mean(x^2) + epsilon) * scale, with scale broadcast (unidirectionally) to
// the row's shape. X (type T) and scale (type V) may differ; Y has scale's type. The first stage
// runs in double (at least stash_type's precision) and is rounded to T, as the spec's cast back
// to X's type says; the product with scale is rounded once to V.
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class RMSNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -1);
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    const auto stash = static_cast<DType>(ctx.get_int("stash_type", 1));
    if (!in_set(kFloatTypes, stash))
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'stash_type' must name a float type, got ",
                      dtype_name(stash));
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& scale = ctx.input_type(1);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (scale.dtype != DType::kUndefined && !in_set(kFloatTypes, scale.dtype))
      return unsupported_dtype(ctx.node(), scale.dtype, "scale");
    ir::ValueType out = x;
    out.dtype = scale.dtype;
    if (x.has_rank()) {
      HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidModel));
      const std::vector<ir::Dim> row(x.shape->begin() + static_cast<int64_t>(a), x.shape->end());
      HI_RETURN_IF_ERROR(check_unidirectional(scale, row, "scale", "the normalized shape"));
    }
    ctx.set_output_type(0, std::move(out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& scale = ctx.in(1);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    if (!in_set(kFloatTypes, scale.dtype())) return unsupported_dtype(ctx.node(), scale.dtype(), "scale");
    HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidArgument));
    const Shape row_shape(x.shape().begin() + static_cast<int64_t>(a), x.shape().end());
    HI_RETURN_IF_ERROR(check_unidirectional(scale.shape(), row_shape, "scale", "the normalized shape"));
    const int64_t n = shape_numel(row_shape);
    const int64_t rows = n == 0 ? 0 : x.numel() / n;
    std::vector<double> s(static_cast<size_t>(n));
    const BroadcastIndex is(row_shape, scale.shape());
    for (int64_t j = 0; j < n; ++j) s[static_cast<size_t>(j)] = scale.as_double(is.offset(j));
    Tensor& y = ctx.output(0, scale.dtype(), x.shape());
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      dispatch<kFloatTypes>(scale.dtype(), [&]<typename V>() {
        const T* px = x.data<T>();
        V* py = y.data<V>();
        for (int64_t r = 0; r < rows; ++r) {
          const T* xr = px + r * n;
          double sq = 0;
          for (int64_t j = 0; j < n; ++j) sq += static_cast<double>(xr[j]) * static_cast<double>(xr[j]);
          const double inv_rms = 1.0 / std::sqrt(sq / static_cast<double>(n) + static_cast<double>(epsilon_));
          for (int64_t j = 0; j < n; ++j) {
            const auto normalized = static_cast<T>(static_cast<compute_t<T>>(static_cast<double>(xr[j]) * inv_rms));
            const double v = static_cast<double>(normalized) * s[static_cast<size_t>(j)];
            py[r * n + j] = static_cast<V>(static_cast<compute_t<V>>(v));
          }
        }
      });
    });
    return Status::ok();
  }

 private:
  Result<size_t> checked_axis(int64_t rank, StatusCode code) const {
    if (rank == 0 || axis_ < -rank || axis_ >= rank)
      return error(code, "axis ", axis_, " is out of range for rank ", rank, " (expected [", -rank, ", ", rank - 1,
                   "])");
    return static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
  }

  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

HI_REGISTER_OP(RMSNormalization, RMSNormalizationOp)

}  // namespace hi::ops
