// InstanceNormalization: each (N, C) plane over the spatial dims is normalised,
// y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c]. Statistics in double.
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class InstanceNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    for (size_t i = 1; i < 3; ++i) {
      const ir::ValueType& p = ctx.input_type(i);
      if (p.dtype != DType::kUndefined && x.dtype != DType::kUndefined && p.dtype != x.dtype)
        return error(StatusCode::kInvalidModel, kName[i], " is ", dtype_name(p.dtype), " but input is ",
                     dtype_name(x.dtype));
      if (!p.has_rank()) continue;
      const bool c_known = x.has_rank() && x.rank() >= 2 && (*x.shape)[1].is_known();
      if (p.rank() != 1 || (c_known && (*p.shape)[0].is_known() && (*p.shape)[0].value != (*x.shape)[1].value))
        return error(StatusCode::kInvalidModel, kName[i], " ", p.to_string(), " must be [C] for input ", x.to_string());
    }
    if (x.has_rank() && x.rank() < 3)
      return error(StatusCode::kInvalidModel, "input ", x.to_string(), " must be [N, C, spatial...] (rank >= 3)");
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() < 3)
      return error(StatusCode::kInvalidArgument, "input ", x.type_string(), " must be [N, C, spatial...] (rank >= 3)");
    const int64_t n = x.dim(0), c = x.dim(1);
    for (size_t i = 1; i < 3; ++i) {
      const Tensor& p = ctx.in(i);
      if (p.rank() != 1 || p.dim(0) != c || p.dtype() != x.dtype())
        return error(StatusCode::kInvalidArgument, kName[i], " ", p.type_string(), " must be ", dtype_name(x.dtype()),
                     "[", c, "] for input ", x.type_string());
    }
    const Tensor& scale = ctx.in(1);
    const Tensor& bias = ctx.in(2);
    const int64_t size = shape_numel(Shape(x.shape().begin() + 2, x.shape().end()));
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t p = 0; p < n * c; ++p) {
        const T* xp = px + p * size;
        double sum = 0;
        for (int64_t i = 0; i < size; ++i) sum += static_cast<double>(xp[i]);
        const double mean = sum / static_cast<double>(size);
        double sq = 0;
        for (int64_t i = 0; i < size; ++i)
          sq += (static_cast<double>(xp[i]) - mean) * (static_cast<double>(xp[i]) - mean);
        const double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(size) + static_cast<double>(epsilon_));
        const double s = scale.as_double(p % c), b = bias.as_double(p % c);
        for (int64_t i = 0; i < size; ++i)
          py[p * size + i] = static_cast<T>(s * (static_cast<double>(xp[i]) - mean) * inv_std + b);
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  static constexpr const char* kName[3] = {"input", "scale", "B"};
  float epsilon_ = 1e-5f;
};

}  // namespace

HI_REGISTER_OP(InstanceNormalization, InstanceNormalizationOp)

}  // namespace hi::ops
