// If: runs then_branch or else_branch (subgraphs without inputs; they read enclosing values by
// name) and returns that branch's outputs: tensors, sequences or optionals. The output types
// cover both branches, or are the taken branch's when the condition is known at build time (the
// executor then compiles only that branch). Opsets 1-25 differ only in the types they allow.
#include "ops/control_flow_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class IfOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const ir::Graph* then_g = require_graph(ctx, "then_branch");
    const ir::Graph* else_g = require_graph(ctx, "else_branch");
    if (!then_g || !else_g) return ctx.status();
    const size_t n = ctx.node().outputs.size();
    using Branch = std::pair<const ir::Graph*, const char*>;
    for (const auto& [g, name] : {Branch{then_g, "then_branch"}, Branch{else_g, "else_branch"}}) {
      if (!g->inputs.empty())
        return ctx.fail(StatusCode::kInvalidModel, name, " must have no inputs, it has ", g->inputs.size());
      if (g->outputs.size() != n)
        return ctx.fail(StatusCode::kInvalidModel, name, " has ", g->outputs.size(), " outputs but the node has ", n);
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "If takes one input (cond), the node has ", ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_condition_type(ctx.input_type(0), "cond"));
    const ir::Graph& then_g = subgraph_signature(ctx, "then_branch");
    const ir::Graph& else_g = subgraph_signature(ctx, "else_branch");
    if (const Tensor* cond = ctx.input_value(0); cond && cond->dtype() == DType::kBool && cond->numel() == 1) {
      // A condition known at build time: only that branch runs (and only it was compiled).
      const ir::Graph& taken = *cond->data<bool>() ? then_g : else_g;
      for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, taken.outputs[i].type);
      return Status::ok();
    }
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      auto merged = merge_types(then_g.outputs[i].type, else_g.outputs[i].type);
      if (!merged.is_ok())
        return error(StatusCode::kInvalidModel, "output ", i, ": then_branch gives ",
                     then_g.outputs[i].type.to_string(), " but else_branch gives ", else_g.outputs[i].type.to_string());
      ctx.set_output_type(i, std::move(merged).value());
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(bool cond, read_condition(ctx.input_value(0), "cond"));
    std::vector<Value> outs;
    HI_RETURN_IF_ERROR(ctx.run_subgraph(cond ? "then_branch" : "else_branch", {}, &outs));
    for (size_t i = 0; i < outs.size() && i < ctx.num_outputs(); ++i) ctx.set_output_value(i, std::move(outs[i]));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(If, IfOp)

}  // namespace hi::ops
