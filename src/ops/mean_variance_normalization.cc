// MeanVarianceNormalization (opset 9): y = (x - mean) / (std + 1e-9), with mean and std over the
// 'axes' (default [0, 2, 3]: per channel of an NCHW tensor), std = sqrt(E[(x - mean)^2]). The
// epsilon sits outside the square root, as in the spec's function body. Statistics in double.
#include <cmath>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr double kEpsilon = 1e-9;

class MeanVarianceNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axes_ = ctx.get_ints("axes", {0, 2, 3});
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (x.has_rank()) HI_RETURN_IF_ERROR(normalize_axes(axes_, x.rank(), "axes").status());
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    auto axes = normalize_axes(axes_, x.rank(), "axes");
    if (!axes.is_ok()) return Status(StatusCode::kInvalidArgument, axes.status().message());
    // The statistics' shape: x's shape with the reduced axes set to 1.
    Shape stat_shape = x.shape();
    for (int64_t a : axes.value()) stat_shape[static_cast<size_t>(a)] = 1;
    const int64_t groups = shape_numel(stat_shape);
    const int64_t n = x.numel();
    const int64_t per_group = groups == 0 ? 0 : n / groups;
    const BroadcastIndex slot(x.shape(), stat_shape);
    std::vector<double> mean(static_cast<size_t>(groups), 0.0), sq(static_cast<size_t>(groups), 0.0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < n; ++i) mean[static_cast<size_t>(slot.offset(i))] += static_cast<double>(px[i]);
      for (double& m : mean) m /= static_cast<double>(per_group);
      for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(px[i]) - mean[static_cast<size_t>(slot.offset(i))];
        sq[static_cast<size_t>(slot.offset(i))] += d * d;
      }
      for (int64_t i = 0; i < n; ++i) {
        const auto g = static_cast<size_t>(slot.offset(i));
        const double stddev = std::sqrt(sq[g] / static_cast<double>(per_group));
        py[i] = static_cast<T>(static_cast<compute_t<T>>((static_cast<double>(px[i]) - mean[g]) / (stddev + kEpsilon)));
      }
    });
    return Status::ok();
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

HI_REGISTER_OP(MeanVarianceNormalization, MeanVarianceNormalizationOp)

}  // namespace hi::ops
