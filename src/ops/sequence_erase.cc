// SequenceErase: a copy of the sequence without the tensor at a position (default: the last;
// negative positions count from the back).
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceEraseOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() < 1 || ctx.num_inputs() > 2 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel,
                   "SequenceErase takes 1 or 2 inputs (input_sequence, position), the node has ", ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    if (ctx.has_input(1)) HI_RETURN_IF_ERROR(check_position_type(ctx.input_type(1)));
    ctx.set_output_type(0, sequence_of(sequence_elem_type(ctx.input_type(0))));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    if (seq->empty()) return error(StatusCode::kInvalidArgument, "cannot erase from an empty sequence");
    int64_t p = static_cast<int64_t>(seq->size()) - 1;
    if (const Tensor* pos = ctx.input(1)) {
      HI_ASSIGN_OR_RETURN(p, sequence_position(*pos, seq->size(), false));
    }
    std::vector<Tensor> out = *seq;
    out.erase(out.begin() + p);
    ctx.set_output_value(0, Value::of_sequence(std::move(out)));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(SequenceErase, SequenceEraseOp)

}  // namespace hi::ops
