// SequenceEmpty: an empty sequence whose element type is the 'dtype' attribute (float32 by
// default).
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceEmptyOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t code = ctx.get_int("dtype", static_cast<int64_t>(DType::kFloat32));
    dtype_ = static_cast<DType>(code);
    if (code <= 0 || !dtype_is_supported(dtype_))
      return ctx.fail(StatusCode::kUnsupported, "SequenceEmpty (opset ", ctx.opset(), ") does not support dtype ", code,
                      " (", dtype_name(dtype_), ")");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 0)
      return error(StatusCode::kInvalidModel, "SequenceEmpty takes no inputs, the node has ", ctx.num_inputs());
    ctx.set_output_type(0, sequence_of(ir::ValueType::tensor_unknown_shape(dtype_)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    ctx.set_output_value(0, Value::of_sequence({}));
    return Status::ok();
  }

 private:
  DType dtype_ = DType::kFloat32;
};

}  // namespace

HI_REGISTER_OP(SequenceEmpty, SequenceEmptyOp)

}  // namespace hi::ops
