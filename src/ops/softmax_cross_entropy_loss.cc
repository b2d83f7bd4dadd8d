// SoftmaxCrossEntropyLoss (opset 12): log_softmax of `scores` [N, C, d...] over the class dim
// (dim 1), then the negative log-likelihood loss against `labels` [N, d...] (see loss_util.h).
// The optional second output is the log-probabilities, shaped like scores. In double.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/copy_util.h"
#include "ops/loss_util.h"

namespace hi::ops {
namespace {

class SoftmaxCrossEntropyLossOp final : public Op {
 public:
  Status init(InitContext& ctx) override { return attrs_.parse(ctx); }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3, 2));
    HI_RETURN_IF_ERROR(infer_loss(ctx, attrs_));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ctx.input_type(0));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype(), "scores");
    HI_ASSIGN_OR_RETURN(const int64_t c, check_loss_shapes(x, ctx.in(1), ctx.input(2)));
    const int64_t n = x.dim(0), inner = dims_product(x.shape(), 2, x.shape().size());
    std::vector<double> logp(static_cast<size_t>(x.numel()));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t d = 0; d < inner; ++d) {
        auto at = [&](int64_t k) { return (b * c + k) * inner + d; };
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < c; ++k) mx = std::max(mx, x.as_double(at(k)));
        double sum = 0;
        for (int64_t k = 0; k < c; ++k) sum += std::exp(x.as_double(at(k)) - mx);
        const double lse = mx + std::log(sum);
        for (int64_t k = 0; k < c; ++k) logp[static_cast<size_t>(at(k))] = x.as_double(at(k)) - lse;
      }
    HI_RETURN_IF_ERROR(reduce_loss(ctx, attrs_, logp, c, ctx.in(1), ctx.input(2), x.dtype()));
    if (ctx.num_outputs() > 1) {
      Tensor& out = ctx.output(1, x.dtype(), x.shape());
      dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
        T* p = out.data<T>();
        for (size_t i = 0; i < logp.size(); ++i) p[i] = static_cast<T>(static_cast<compute_t<T>>(logp[i]));
      });
    }
    return Status::ok();
  }

 private:
  LossAttributes attrs_;
};

}  // namespace

HI_REGISTER_OP(SoftmaxCrossEntropyLoss, SoftmaxCrossEntropyLossOp)

}  // namespace hi::ops
