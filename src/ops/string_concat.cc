// StringConcat (opset 20): elementwise concatenation of two string tensors, with numpy
// broadcasting. Bytes are joined as they are (UTF-8 stays valid: both halves are).
#include "ops/elementwise.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class StringConcatOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kString), "X"));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 1, bit(DType::kString), "Y"));
    return infer_broadcast(ctx, bit(DType::kString));
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    if (a.dtype() != DType::kString) return unsupported_type(ctx.node(), opset_, "X", a.dtype());
    if (b.dtype() != DType::kString) return unsupported_type(ctx.node(), opset_, "Y", b.dtype());
    HI_ASSIGN_OR_RETURN(const Shape shape, broadcast_shapes(a.shape(), b.shape()));
    Tensor& out = ctx.output(0, DType::kString, shape);
    const std::string* pa = a.strings();
    const std::string* pb = b.strings();
    std::string* po = out.strings();
    for_each_broadcast(shape, a.shape(), b.shape(),
                       [&](int64_t o, int64_t ia, int64_t ib) { po[o] = pa[ia] + pb[ib]; });
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
};

}  // namespace

HI_REGISTER_OP(StringConcat, StringConcatOp)

}  // namespace hi::ops
