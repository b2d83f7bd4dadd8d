// Loop: runs its body while the iteration count is below M (when given) and the condition holds
// (when given). Inputs: M (int64 scalar, optional), cond (bool, optional), N loop-carried initial
// values. The body takes (iteration number, condition, N carried values) and gives (condition,
// N carried values, K scan outputs). The node outputs the final carried values (tensors,
// sequences or optionals) and the K scan outputs stacked along a new first axis.
//
// As the spec says, the body's condition output is only read when the node has a cond input
// ("for" loops ignore it). Opsets 1-25 differ only in the types they allow.
#include <limits>

#include "core/run_control.h"
#include "ops/control_flow_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class LoopOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    body_ = require_graph(ctx, "body");
    if (!body_) return ctx.status();
    const ir::Node& n = ctx.node();
    if (n.inputs.size() < 2)
      return ctx.fail(StatusCode::kInvalidModel,
                      "Loop takes at least 2 inputs (M, cond; either may be empty), the node has ", n.inputs.size());
    num_carried_ = n.inputs.size() - 2;
    if (body_->inputs.size() != 2 + num_carried_)
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->inputs.size(), " inputs, expected ",
                      2 + num_carried_, " (iteration number, condition, and the node's ", num_carried_,
                      " loop-carried values)");
    if (body_->outputs.size() < 1 + num_carried_)
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->outputs.size(), " outputs, expected at least ",
                      1 + num_carried_, " (condition and ", num_carried_, " loop-carried values)");
    num_scan_ = body_->outputs.size() - 1 - num_carried_;
    if (n.outputs.size() != num_carried_ + num_scan_)
      return ctx.fail(StatusCode::kInvalidModel, "the node has ", n.outputs.size(), " outputs, expected ",
                      num_carried_ + num_scan_, " (", num_carried_, " loop-carried values and ", num_scan_,
                      " scan outputs of the body)");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.has_input(0)) {
      const ir::ValueType& m = ctx.input_type(0);
      if (m.dtype != DType::kUndefined && m.dtype != DType::kInt64)
        return error(StatusCode::kInvalidModel, "M (the trip count) must be int64, got ", m.to_string());
    }
    if (ctx.has_input(1)) HI_RETURN_IF_ERROR(check_condition_type(ctx.input_type(1), "cond"));
    const ir::Graph& body = subgraph_signature(ctx, "body");
    HI_RETURN_IF_ERROR(
        check_condition_type(body.outputs[0].type, "the body's condition output '" + body.outputs[0].name + "'"));
    for (size_t j = 0; j < num_carried_; ++j) {
      const ir::ValueType& from_body = body.outputs[1 + j].type;
      if (!ctx.has_input(2 + j)) {  // an empty optional to start with
        ctx.set_output_type(j, from_body);
        continue;
      }
      auto merged = merge_types(ctx.input_type(2 + j), from_body);
      if (!merged.is_ok())
        return error(StatusCode::kInvalidModel, "loop-carried value ", j, " starts as ",
                     ctx.input_type(2 + j).to_string(), " but the body gives ", from_body.to_string());
      ctx.set_output_type(j, std::move(merged).value());
    }
    for (size_t k = 0; k < num_scan_; ++k) {
      const ir::ValueInfo& out = body.outputs[1 + num_carried_ + k];
      if (out.type.kind != ir::ValueKind::kTensor && out.type.kind != ir::ValueKind::kUnknown)
        return error(StatusCode::kInvalidModel, "scan output '", out.name, "' must be a tensor, the body gives ",
                     out.type.to_string());
      ir::ValueType t = ir::ValueType::tensor_unknown_shape(out.type.dtype);
      if (out.type.has_rank()) {
        t.shape = *out.type.shape;
        t.shape->insert(t.shape->begin(), ir::Dim{});  // the number of iterations
      }
      ctx.set_output_type(num_carried_ + k, std::move(t));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    int64_t max_trips = std::numeric_limits<int64_t>::max();
    const Value* m = ctx.input_value(0);
    if (m && m->kind != Value::Kind::kNone) {
      if (!m->is_tensor() || m->tensor.dtype() != DType::kInt64 || m->tensor.numel() != 1)
        return error(StatusCode::kInvalidArgument, "M (the trip count) must be an int64 scalar, got ",
                     m->is_tensor() ? m->tensor.type_string() : "a sequence");
      max_trips = *m->tensor.data<int64_t>();
    }
    bool cond = true;
    const Value* c = ctx.input_value(1);
    const bool has_cond = c && c->kind != Value::Kind::kNone;
    if (has_cond) {
      HI_ASSIGN_OR_RETURN(cond, read_condition(c, "cond"));
    }

    std::vector<Value> carried(num_carried_);
    for (size_t j = 0; j < num_carried_; ++j)
      if (const Value* v = ctx.input_value(2 + j)) carried[j] = *v;
    std::vector<ScanOutput> scans;
    for (size_t k = 0; k < num_scan_; ++k) scans.emplace_back(body_->outputs[1 + num_carried_ + k].name);
    const std::string cond_name = "the body's condition output '" + body_->outputs[0].name + "'";

    std::vector<Value> outs;
    for (int64_t i = 0; i < max_trips && cond; ++i) {
      check_run_stop();  // a body with no nodes checks nothing itself
      std::vector<Value> ins;
      ins.reserve(2 + num_carried_);
      ins.push_back(Value::of(Tensor::scalar<int64_t>(i)));
      ins.push_back(Value::of(Tensor::scalar<bool>(cond)));
      for (auto& v : carried) ins.push_back(std::move(v));
      HI_RETURN_IF_ERROR(ctx.run_subgraph("body", std::move(ins), &outs));
      if (has_cond) {
        HI_ASSIGN_OR_RETURN(cond, read_condition(&outs[0], cond_name));
      }
      for (size_t j = 0; j < num_carried_; ++j) carried[j] = std::move(outs[1 + j]);
      for (size_t k = 0; k < num_scan_; ++k) HI_RETURN_IF_ERROR(scans[k].add(outs[1 + num_carried_ + k], i));
    }
    for (size_t j = 0; j < num_carried_; ++j) ctx.set_output_value(j, std::move(carried[j]));
    for (size_t k = 0; k < num_scan_; ++k) {
      HI_ASSIGN_OR_RETURN(Tensor t, scans[k].stack(0, false, body_->outputs[1 + num_carried_ + k].type));
      ctx.set_output(num_carried_ + k, std::move(t));
    }
    return Status::ok();
  }

 private:
  const ir::Graph* body_ = nullptr;  // owned by the model, which outlives the session
  size_t num_carried_ = 0;
  size_t num_scan_ = 0;
};

}  // namespace

HI_REGISTER_OP(Loop, LoopOp)

}  // namespace hi::ops
