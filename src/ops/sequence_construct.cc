// SequenceConstruct: a sequence of its input tensors, which must share one element type.
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceConstructOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() == 0)
      return error(StatusCode::kInvalidModel, "SequenceConstruct needs at least one input, the node has none");
    ir::ValueType elem{ir::ValueKind::kUnknown, DType::kUndefined, std::nullopt, nullptr};
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i))
        return error(StatusCode::kInvalidModel, "input ", i, " is empty; every input must be a tensor");
      HI_RETURN_IF_ERROR(check_tensor_type(ctx, i, "an element"));
      auto merged = merge_types(elem, ctx.input_type(i));
      if (!merged.is_ok())
        return error(StatusCode::kInvalidModel, "input ", i, " is ", ctx.input_type(i).to_string(),
                     " but earlier inputs are ", elem.to_string(), "; all elements must have one element type");
      elem = std::move(merged).value();
    }
    ctx.set_output_type(0, sequence_of(std::move(elem)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    std::vector<Tensor> elems;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor* t = ctx.input(i);
      if (!t) return error(StatusCode::kInvalidArgument, "input ", i, " must be a tensor");
      if (!elems.empty() && t->dtype() != elems.front().dtype())
        return error(StatusCode::kInvalidArgument, "input ", i, " is ", t->type_string(), " but input 0 is ",
                     elems.front().type_string(), "; all elements must have one element type");
      elems.push_back(*t);
    }
    ctx.set_output_value(0, Value::of_sequence(std::move(elems)));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(SequenceConstruct, SequenceConstructOp)

}  // namespace hi::ops
