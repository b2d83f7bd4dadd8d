// SequenceAt: the tensor at a position of a sequence (negative positions count from the back).
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceAtOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 2 || !ctx.has_input(0) || !ctx.has_input(1))
      return error(StatusCode::kInvalidModel, "SequenceAt takes 2 inputs (input_sequence, position), the node has ",
                   ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    HI_RETURN_IF_ERROR(check_position_type(ctx.input_type(1)));
    ctx.set_output_type(0, sequence_elem_type(ctx.input_type(0)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    const Tensor* pos = ctx.input(1);
    if (!pos) return error(StatusCode::kInvalidArgument, "position must be a tensor");
    HI_ASSIGN_OR_RETURN(int64_t p, sequence_position(*pos, seq->size(), false));
    ctx.set_output(0, (*seq)[static_cast<size_t>(p)]);
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(SequenceAt, SequenceAtOp)

}  // namespace hi::ops
