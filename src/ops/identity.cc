// Identity: the input, shared (no copy). Also passes sequences and optionals through.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class IdentityOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    ctx.set_output_type(0, ctx.input_type(0));
    if (const Tensor* v = ctx.input_value(0)) ctx.set_output_value(0, *v);
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    ctx.set_output_value(0, *ctx.input_value(0));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Identity, IdentityOp)

}  // namespace hi::ops
