// SequenceInsert: a copy of the sequence with a tensor inserted at a position (default: at the
// back; negative positions count from the back). The tensor's element type must be the
// sequence's.
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceInsertOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3 || !ctx.has_input(0) || !ctx.has_input(1))
      return error(StatusCode::kInvalidModel,
                   "SequenceInsert takes 2 or 3 inputs (input_sequence, tensor, position), the node has ",
                   ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    HI_RETURN_IF_ERROR(check_tensor_type(ctx, 1, "tensor"));
    if (ctx.has_input(2)) HI_RETURN_IF_ERROR(check_position_type(ctx.input_type(2)));
    const ir::ValueType& seq = ctx.input_type(0);
    const ir::ValueType& t = ctx.input_type(1);
    if (seq.kind != ir::ValueKind::kSequence || !seq.elem) {  // the other elements are not known
      ctx.set_output_type(0, sequence_of(ir::ValueType::tensor_unknown_shape(t.dtype)));
      return Status::ok();
    }
    auto merged = merge_types(*seq.elem, t);
    if (!merged.is_ok())
      return error(StatusCode::kInvalidModel, "tensor is ", t.to_string(), " but the sequence holds ",
                   seq.elem->to_string());
    ctx.set_output_type(0, sequence_of(std::move(merged).value()));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    const Tensor* t = ctx.input(1);
    if (!t) return error(StatusCode::kInvalidArgument, "input 1 (tensor) must be a tensor");
    if (!seq->empty() && seq->front().dtype() != t->dtype())
      return error(StatusCode::kInvalidArgument, "tensor is ", t->type_string(), " but the sequence holds ",
                   dtype_name(seq->front().dtype()), " tensors");
    int64_t p = static_cast<int64_t>(seq->size());
    if (const Tensor* pos = ctx.input(2)) {
      HI_ASSIGN_OR_RETURN(p, sequence_position(*pos, seq->size(), true));
    }
    std::vector<Tensor> out;
    out.reserve(seq->size() + 1);
    out.insert(out.end(), seq->begin(), seq->begin() + p);
    out.push_back(*t);
    out.insert(out.end(), seq->begin() + p, seq->end());
    ctx.set_output_value(0, Value::of_sequence(std::move(out)));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(SequenceInsert, SequenceInsertOp)

}  // namespace hi::ops
