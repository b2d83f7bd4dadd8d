// SequenceLength: the number of tensors in a sequence, as an int64 scalar.
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceLengthOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "SequenceLength takes 1 input (input_sequence), the node has ",
                   ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    ctx.set_output(0, Tensor::scalar<int64_t>(static_cast<int64_t>(seq->size())));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(SequenceLength, SequenceLengthOp)

}  // namespace hi::ops
