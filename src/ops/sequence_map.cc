// SequenceMap: runs its body once per element of the input sequence. The body takes the
// element and one value per additional input: the i-th element of an additional sequence (of
// the same length) or an additional tensor as is. Each body output (a tensor) becomes an output
// sequence of one tensor per element.
#include "ops/control_flow_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SequenceMapOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    body_ = require_graph(ctx, "body");
    if (!body_) return ctx.status();
    const ir::Node& n = ctx.node();
    if (n.inputs.empty())
      return ctx.fail(StatusCode::kInvalidModel, "SequenceMap needs at least one input (input_sequence)");
    if (body_->inputs.size() != n.inputs.size())
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->inputs.size(), " inputs but the node has ",
                      n.inputs.size());
    if (body_->outputs.size() != n.outputs.size())
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->outputs.size(), " outputs but the node has ",
                      n.outputs.size());
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (!ctx.has_input(i))
        return error(StatusCode::kInvalidModel, "input ", i, " is empty; SequenceMap needs every input");
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.input_type(i).kind == ir::ValueKind::kOptional || ctx.input_type(i).kind == ir::ValueKind::kMap)
        return error(StatusCode::kInvalidModel, "additional input ", i, " must be a sequence or a tensor, got ",
                     ctx.input_type(i).to_string());
    const ir::Graph& body = subgraph_signature(ctx, "body");
    for (size_t k = 0; k < ctx.num_outputs(); ++k) {
      const ir::ValueType& t = body.outputs[k].type;
      if (t.kind != ir::ValueKind::kTensor && t.kind != ir::ValueKind::kUnknown)
        return error(StatusCode::kInvalidModel, "body output '", body.outputs[k].name, "' must be a tensor, got ",
                     t.to_string());
      ctx.set_output_type(
          k,
          sequence_of(t.kind == ir::ValueKind::kTensor ? t : ir::ValueType::tensor_unknown_shape(DType::kUndefined)));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    const size_t len = seq->size();
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (!v || v->kind == Value::Kind::kNone)
        return error(StatusCode::kInvalidArgument, "additional input ", i,
                     " must be a sequence or a tensor, got nothing");
      if (v->kind == Value::Kind::kSequence && v->sequence.size() != len)
        return error(StatusCode::kInvalidArgument, "additional input ", i, " is a sequence of ", v->sequence.size(),
                     " tensors but input_sequence has ", len);
    }
    std::vector<std::vector<Tensor>> results(ctx.num_outputs());
    std::vector<Value> outs;
    for (size_t e = 0; e < len; ++e) {
      std::vector<Value> ins;
      ins.push_back(Value::of((*seq)[e]));
      for (size_t i = 1; i < ctx.num_inputs(); ++i) {
        const Value* v = ctx.input_value(i);
        ins.push_back(v->kind == Value::Kind::kSequence ? Value::of(v->sequence[e]) : *v);
      }
      HI_RETURN_IF_ERROR(ctx.run_subgraph("body", std::move(ins), &outs));
      for (size_t k = 0; k < results.size(); ++k) {
        if (!outs[k].is_tensor())
          return error(StatusCode::kInvalidArgument, "body output '", body_->outputs[k].name,
                       "' must be a tensor, got ",
                       outs[k].kind == Value::Kind::kNone ? "an empty optional" : "a sequence", " for element ", e);
        results[k].push_back(std::move(outs[k].tensor));
      }
    }
    for (size_t k = 0; k < results.size(); ++k) ctx.set_output_value(k, Value::of_sequence(std::move(results[k])));
    return Status::ok();
  }

 private:
  const ir::Graph* body_ = nullptr;  // owned by the model, which outlives the session
};

}  // namespace

HI_REGISTER_OP(SequenceMap, SequenceMapOp)

}  // namespace hi::ops
