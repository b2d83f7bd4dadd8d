// OptionalHasElement: true when the optional input holds a value. From opset 18 the input may
// be absent (false) or a tensor or sequence (true).
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class OptionalHasElementOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() > 1)
      return error(StatusCode::kInvalidModel, "OptionalHasElement takes at most 1 input, the node has ",
                   ctx.num_inputs());
    if (opset_ < 18) {
      if (!ctx.has_input(0))
        return error(StatusCode::kInvalidModel, "OptionalHasElement-", opset_,
                     " needs its input (it may be absent from opset 18)");
      const ir::ValueType& t = ctx.input_type(0);
      if (t.kind != ir::ValueKind::kOptional && t.kind != ir::ValueKind::kUnknown)
        return error(StatusCode::kInvalidModel, "OptionalHasElement-", opset_, " takes an optional, got ",
                     t.to_string(), " (tensors and sequences need opset 18)");
    }
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kBool, {}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    ctx.set_output(0, Tensor::scalar<bool>(v && v->kind != Value::Kind::kNone));
    return Status::ok();
  }

 private:
  int64_t opset_ = 18;
};

}  // namespace

HI_REGISTER_OP(OptionalHasElement, OptionalHasElementOp)

}  // namespace hi::ops
