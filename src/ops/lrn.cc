// LRN: local response normalisation across channels (dim 1),
// y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta.
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class LRNOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    alpha_ = ctx.get_float("alpha", 1e-4f);
    beta_ = ctx.get_float("beta", 0.75f);
    bias_ = ctx.get_float("bias", 1.f);
    size_ = ctx.require_int("size");
    HI_RETURN_IF_ERROR(ctx.status());
    if (size_ <= 0) return ctx.fail(StatusCode::kInvalidModel, "size must be positive, got ", size_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
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
    const int64_t size = shape_numel(Shape(x.shape().begin() + 2, x.shape().end()));
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;  // floor and ceil of (size - 1) / 2
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t s = 0; s < size; ++s) {
            double sq = 0;
            for (int64_t k = std::max<int64_t>(0, ch - before); k <= std::min(c - 1, ch + after); ++k) {
              const double v = static_cast<double>(px[(b * c + k) * size + s]);
              sq += v * v;
            }
            const int64_t i = (b * c + ch) * size + s;
            const double denom =
                std::pow(static_cast<double>(bias_) + static_cast<double>(alpha_) / static_cast<double>(size_) * sq,
                         static_cast<double>(beta_));
            py[i] = static_cast<T>(static_cast<double>(px[i]) / denom);
          }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.f;
  int64_t size_ = 1;
};

}  // namespace

HI_REGISTER_OP(LRN, LRNOp)

}  // namespace hi::ops
