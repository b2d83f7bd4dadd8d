// OptionalGetElement: the value an optional holds (an error when it is empty). From opset 18 a
// tensor or sequence input is passed through as is.
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class OptionalGetElementOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "OptionalGetElement takes 1 input, the node has ", ctx.num_inputs());
    const ir::ValueType& t = ctx.input_type(0);
    if (t.kind == ir::ValueKind::kOptional) {
      ctx.set_output_type(
          0, t.elem ? *t.elem : ir::ValueType{ir::ValueKind::kUnknown, DType::kUndefined, std::nullopt, nullptr});
      return Status::ok();
    }
    if (opset_ < 18 && t.kind != ir::ValueKind::kUnknown)
      return error(StatusCode::kInvalidModel, "OptionalGetElement-", opset_, " takes an optional, got ", t.to_string(),
                   " (tensors and sequences need opset 18)");
    if (t.kind == ir::ValueKind::kMap) return error(StatusCode::kInvalidModel, "OptionalGetElement does not take maps");
    ctx.set_output_type(0, t);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    if (!v || v->kind == Value::Kind::kNone)
      return error(StatusCode::kInvalidArgument, "the optional input is empty; there is no element to get");
    ctx.set_output_value(0, *v);
    return Status::ok();
  }

 private:
  int64_t opset_ = 18;
};

}  // namespace

HI_REGISTER_OP(OptionalGetElement, OptionalGetElementOp)

}  // namespace hi::ops
