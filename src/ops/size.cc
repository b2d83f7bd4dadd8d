// Size: the input's element count as an int64 scalar.
#include "ops/op.h"

namespace hi::ops {
namespace {

class SizeOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    if (x.is_static()) ctx.set_output_value(0, Tensor::scalar<int64_t>(shape_numel(x.concrete_shape())));
    else ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {}));
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    ctx.output(0, DType::kInt64, {}).data<int64_t>()[0] = ctx.in(0).numel();
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Size, SizeOp)

}  // namespace hi::ops
