// Identity: the input, shared (no copy). Also passes sequences and optionals through (an empty
// optional stays empty).
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class IdentityOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "Identity takes 1 input, the node has ", ctx.num_inputs(),
                   ctx.num_inputs() == 1 ? " (empty)" : "");
    ctx.set_output_type(0, ctx.input_type(0));
    if (const Tensor* v = ctx.input_value(0)) ctx.set_output_value(0, *v);
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    ctx.set_output_value(0, v ? *v : Value{});
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Identity, IdentityOp)

}  // namespace hi::ops
