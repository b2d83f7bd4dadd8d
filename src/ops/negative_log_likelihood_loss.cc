// NegativeLogLikelihoodLoss (opset 12): the loss from log-probabilities `input` [N, C, d...] and
// class indices `target` [N, d...], optionally weighted per class; see loss_util.h.
#include "ops/loss_util.h"

namespace hi::ops {
namespace {

class NegativeLogLikelihoodLossOp final : public Op {
 public:
  Status init(InitContext& ctx) override { return attrs_.parse(ctx); }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3, 1));
    return infer_loss(ctx, attrs_);
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype(), "input");
    HI_ASSIGN_OR_RETURN(const int64_t c, check_loss_shapes(x, ctx.in(1), ctx.input(2)));
    std::vector<double> logp(static_cast<size_t>(x.numel()));
    for (int64_t i = 0; i < x.numel(); ++i) logp[static_cast<size_t>(i)] = x.as_double(i);
    return reduce_loss(ctx, attrs_, logp, c, ctx.in(1), ctx.input(2), x.dtype());
  }

 private:
  LossAttributes attrs_;
};

}  // namespace

HI_REGISTER_OP(NegativeLogLikelihoodLoss, NegativeLogLikelihoodLossOp)

}  // namespace hi::ops
