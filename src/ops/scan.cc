// Scan: runs its body once per element of M scan inputs, carrying N state variables, and stacks
// the body's K scan outputs. Two forms:
// - opset 9+: inputs (N initial states, M scan inputs); each scan input is sliced along its
//   scan_input_axes entry, forward or reversed per scan_input_directions; scan outputs are
//   stacked along scan_output_axes, appended or prepended per scan_output_directions.
// - opset 8: inputs (sequence_lens, N initial states, M scan inputs), every input with a batch
//   axis 0 and scan inputs with the sequence on axis 1; each batch entry runs on its own for
//   sequence_lens[b] steps (default: all), reversed per `directions`. Scan outputs of shorter
//   entries are padded with zeros to the longest sequence.
// States must keep their shape from one iteration to the next, as must scan outputs.
#include "core/run_control.h"
#include "ops/control_flow_util.h"
#include "ops/copy_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

// Reads a list attribute of `count` entries (default: zeros); records a failure otherwise.
std::vector<int64_t> per_item_attr(InitContext& ctx, const char* name, size_t count, bool flags) {
  std::vector<int64_t> v = ctx.get_ints(name, std::vector<int64_t>(count, 0));
  if (v.size() != count) {
    (void)ctx.fail(StatusCode::kInvalidModel, "attribute '", name, "' has ", v.size(), " entries, expected ", count);
    return std::vector<int64_t>(count, 0);
  }
  for (int64_t x : v)
    if (flags && x != 0 && x != 1)
      (void)ctx.fail(StatusCode::kInvalidModel, "attribute '", name, "' holds ", x,
                     "; directions are 0 (forward) or 1 (reverse)");
  return v;
}

class ScanOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    body_ = require_graph(ctx, "body");
    const int64_t m = ctx.require_int("num_scan_inputs");
    if (!body_ || !ctx.status().is_ok()) return ctx.status();
    const ir::Node& n = ctx.node();
    first_ = opset_ < 9 ? 1 : 0;
    if (m < 1 || n.inputs.size() < first_ + static_cast<size_t>(m))
      return ctx.fail(StatusCode::kInvalidModel, "num_scan_inputs is ", m, " but the node has ", n.inputs.size(),
                      " inputs", opset_ < 9 ? " (sequence_lens, states, scan inputs)" : " (states, scan inputs)");
    num_scan_in_ = static_cast<size_t>(m);
    num_state_ = n.inputs.size() - first_ - num_scan_in_;
    if (body_->inputs.size() != num_state_ + num_scan_in_)
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->inputs.size(), " inputs, expected ",
                      num_state_ + num_scan_in_, " (", num_state_, " states and ", num_scan_in_,
                      " scan input elements)");
    if (body_->outputs.size() < num_state_)
      return ctx.fail(StatusCode::kInvalidModel, "the body has ", body_->outputs.size(), " outputs, expected at least ",
                      num_state_, " (the states)");
    num_scan_out_ = body_->outputs.size() - num_state_;
    if (n.outputs.size() != num_state_ + num_scan_out_)
      return ctx.fail(StatusCode::kInvalidModel, "the node has ", n.outputs.size(), " outputs, expected ",
                      num_state_ + num_scan_out_, " (", num_state_, " states and ", num_scan_out_,
                      " scan outputs of the body)");
    if (opset_ < 9) {
      in_dirs_ = per_item_attr(ctx, "directions", num_scan_in_, true);
      in_axes_.assign(num_scan_in_, 0);
      out_axes_.assign(num_scan_out_, 0);
      out_dirs_.assign(num_scan_out_, 0);
      return ctx.status();
    }
    in_axes_ = per_item_attr(ctx, "scan_input_axes", num_scan_in_, false);
    in_dirs_ = per_item_attr(ctx, "scan_input_directions", num_scan_in_, true);
    out_axes_ = per_item_attr(ctx, "scan_output_axes", num_scan_out_, false);
    out_dirs_ = per_item_attr(ctx, "scan_output_directions", num_scan_out_, true);
    if (opset_ < 11) {
      for (int64_t a : in_axes_)
        if (a < 0)
          return ctx.fail(StatusCode::kInvalidModel, "scan_input_axes holds ", a, "; negative axes need opset 11");
      for (int64_t a : out_axes_)
        if (a < 0)
          return ctx.fail(StatusCode::kInvalidModel, "scan_output_axes holds ", a, "; negative axes need opset 11");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    for (size_t i = first_; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i))
        return error(StatusCode::kInvalidModel, "input ", i, " is empty; Scan needs every state and scan input");
      HI_RETURN_IF_ERROR(check_tensor_type(ctx, i, i < first_ + num_state_ ? "a state" : "a scan input"));
    }
    const bool batched = opset_ < 9;
    if (batched && ctx.has_input(0)) {
      const ir::ValueType& lens = ctx.input_type(0);
      if (lens.dtype != DType::kUndefined && lens.dtype != DType::kInt64)
        return error(StatusCode::kInvalidModel, "sequence_lens must be int64, got ", lens.to_string());
    }
    // The sequence length (and, for Scan-8, the batch size) when a scan input's shape gives it.
    ir::Dim seq_len, batch;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      const ir::ValueType& x = ctx.input_type(first_ + num_state_ + j);
      if (!x.has_rank()) continue;
      if (batched) {
        if (x.rank() < 2)
          return error(StatusCode::kInvalidModel, "scan input ", j, " is ", x.to_string(),
                       "; Scan-8 needs [batch, sequence, ...]");
        batch = (*x.shape)[0];
        seq_len = (*x.shape)[1];
      } else {
        if (x.rank() < 1)
          return error(StatusCode::kInvalidModel, "scan input ", j, " is ", x.to_string(),
                       "; a scalar has no axis to scan");
        HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(in_axes_[j], x.rank()));
        seq_len = (*x.shape)[static_cast<size_t>(axis)];
      }
      if (seq_len.is_known()) break;
    }
    const ir::Graph& body = subgraph_signature(ctx, "body");
    auto with_leading = [&](const ir::ValueType& t, std::vector<ir::Dim> lead, int64_t axis) -> Result<ir::ValueType> {
      if (!t.has_rank()) return ir::ValueType::tensor_unknown_shape(t.dtype);
      std::vector<ir::Dim> dims = *t.shape;
      HI_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, t.rank() + 1));
      dims.insert(dims.begin() + a, lead.begin(), lead.end());
      return ir::ValueType::tensor(t.dtype, std::move(dims));
    };
    for (size_t i = 0; i < num_state_; ++i) {
      ir::ValueType from_body = body.outputs[i].type;
      if (batched) {
        HI_ASSIGN_OR_RETURN(from_body, with_leading(from_body, {batch}, 0));
      }
      auto merged = merge_types(ctx.input_type(first_ + i), from_body);
      if (!merged.is_ok())
        return error(StatusCode::kInvalidModel, "state ", i, " starts as ", ctx.input_type(first_ + i).to_string(),
                     " but the body gives ", body.outputs[i].type.to_string());
      ctx.set_output_type(i, std::move(merged).value());
    }
    for (size_t k = 0; k < num_scan_out_; ++k) {
      const ir::ValueInfo& out = body.outputs[num_state_ + k];
      if (out.type.kind != ir::ValueKind::kTensor && out.type.kind != ir::ValueKind::kUnknown)
        return error(StatusCode::kInvalidModel, "scan output '", out.name, "' must be a tensor, the body gives ",
                     out.type.to_string());
      std::vector<ir::Dim> lead = batched ? std::vector<ir::Dim>{batch, seq_len} : std::vector<ir::Dim>{seq_len};
      HI_ASSIGN_OR_RETURN(auto t, with_leading(out.type, std::move(lead), out_axes_[k]));
      ctx.set_output_type(num_state_ + k, std::move(t));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override { return opset_ < 9 ? run_batched(ctx) : run_unbatched(ctx); }

 private:
  // The body run over `len` steps: `states` in and out, scan input j sliced along axes[j] at
  // step t (from the back when reversed), scan outputs appended to `scans`.
  Status run_steps(const RunContext& ctx, std::vector<Value>& states, const std::vector<const Tensor*>& xs,
                   const std::vector<int64_t>& axes, int64_t len, std::vector<ScanOutput>& scans) const {
    std::vector<Shape> state_shapes;  // states keep the shape they start with
    for (const auto& s : states) {
      if (!s.is_tensor()) return error(StatusCode::kInvalidArgument, "states must be tensors");
      state_shapes.push_back(s.tensor.shape());
    }
    std::vector<Value> outs;
    for (int64_t t = 0; t < len; ++t) {
      check_run_stop();  // a body with no nodes checks nothing itself
      std::vector<Value> ins;
      ins.reserve(num_state_ + num_scan_in_);
      for (auto& s : states) ins.push_back(std::move(s));
      for (size_t j = 0; j < num_scan_in_; ++j)
        ins.push_back(Value::of(slice_along(*xs[j], axes[j], in_dirs_[j] ? len - 1 - t : t)));
      HI_RETURN_IF_ERROR(ctx.run_subgraph("body", std::move(ins), &outs));
      for (size_t i = 0; i < num_state_; ++i) {
        Value& after = outs[i];
        if (!after.is_tensor())
          return error(StatusCode::kInvalidArgument, "state '", body_->outputs[i].name,
                       "' must be a tensor at iteration ", t);
        if (after.tensor.shape() != state_shapes[i])
          return error(StatusCode::kInvalidArgument, "state '", body_->outputs[i].name, "' has shape ",
                       shape_to_string(after.tensor.shape()), " at iteration ", t, " but started as ",
                       shape_to_string(state_shapes[i]), "; states must keep their shape");
        states[i] = std::move(after);
      }
      for (size_t k = 0; k < num_scan_out_; ++k) HI_RETURN_IF_ERROR(scans[k].add(outs[num_state_ + k], t));
    }
    return Status::ok();
  }

  Result<std::vector<const Tensor*>> scan_inputs(const RunContext& ctx) const {
    std::vector<const Tensor*> xs;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      const Tensor* x = ctx.input(first_ + num_state_ + j);
      if (!x) return error(StatusCode::kInvalidArgument, "scan input ", j, " must be a tensor");
      if (!is_movable_dtype(x->dtype()))
        return error(StatusCode::kUnsupported, "Scan-", opset_, " does not support scan input type ",
                     dtype_name(x->dtype()));
      xs.push_back(x);
    }
    return xs;
  }

  std::vector<ScanOutput> new_scan_outputs() const {
    std::vector<ScanOutput> scans;
    for (size_t k = 0; k < num_scan_out_; ++k) scans.emplace_back(body_->outputs[num_state_ + k].name);
    return scans;
  }

  Status run_unbatched(RunContext& ctx) const {
    HI_ASSIGN_OR_RETURN(auto xs, scan_inputs(ctx));
    std::vector<int64_t> axes;
    int64_t len = -1;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      if (xs[j]->rank() == 0)
        return error(StatusCode::kInvalidArgument, "scan input ", j, " is a scalar; it needs an axis to scan");
      HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(in_axes_[j], xs[j]->rank()));
      axes.push_back(axis);
      const int64_t l = xs[j]->dim(axis);
      if (len >= 0 && l != len)
        return error(StatusCode::kInvalidArgument, "scan input ", j, " is ", xs[j]->type_string(), " with ", l,
                     " steps along axis ", axis, " but scan input 0 has ", len);
      len = l;
    }
    std::vector<Value> states;
    for (size_t i = 0; i < num_state_; ++i) states.push_back(*ctx.input_value(first_ + i));
    std::vector<ScanOutput> scans = new_scan_outputs();
    HI_RETURN_IF_ERROR(run_steps(ctx, states, xs, axes, len, scans));
    for (size_t i = 0; i < num_state_; ++i) ctx.set_output_value(i, std::move(states[i]));
    for (size_t k = 0; k < num_scan_out_; ++k) {
      const ir::ValueType& type = body_->outputs[num_state_ + k].type;
      const int64_t elem_rank = scans[k].size() ? scans[k].items()[0].rank() : std::max<int64_t>(type.rank(), 0);
      HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(out_axes_[k], elem_rank + 1));
      HI_ASSIGN_OR_RETURN(Tensor t, scans[k].stack(axis, out_dirs_[k] != 0, type));
      ctx.set_output(num_state_ + k, std::move(t));
    }
    return Status::ok();
  }

  Status run_batched(RunContext& ctx) const {
    HI_ASSIGN_OR_RETURN(auto xs, scan_inputs(ctx));
    int64_t batch = -1, max_len = -1;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      if (xs[j]->rank() < 2)
        return error(StatusCode::kInvalidArgument, "scan input ", j, " is ", xs[j]->type_string(),
                     "; Scan-8 needs [batch, sequence, ...]");
      if (j > 0 && (xs[j]->dim(0) != batch || xs[j]->dim(1) != max_len))
        return error(StatusCode::kInvalidArgument, "scan input ", j, " is ", xs[j]->type_string(),
                     " but scan input 0 is ", xs[0]->type_string(), "; batch and sequence dims must match");
      batch = xs[j]->dim(0);
      max_len = xs[j]->dim(1);
    }
    std::vector<const Tensor*> states_in;
    for (size_t i = 0; i < num_state_; ++i) {
      const Tensor* s = ctx.input(first_ + i);
      if (!s || s->rank() < 1 || s->dim(0) != batch)
        return error(StatusCode::kInvalidArgument, "state ", i, " is ", s ? s->type_string() : "not a tensor",
                     "; Scan-8 needs a batch dim of ", batch, " first");
      if (!is_movable_dtype(s->dtype()))
        return error(StatusCode::kUnsupported, "Scan-8 does not support state type ", dtype_name(s->dtype()));
      states_in.push_back(s);
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), max_len);
    if (const Tensor* sl = ctx.input(0)) {
      if (sl->dtype() != DType::kInt64 || sl->rank() != 1 || sl->dim(0) != batch)
        return error(StatusCode::kInvalidArgument, "sequence_lens must be int64[", batch, "], got ", sl->type_string());
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t l = sl->data<int64_t>()[b];
        if (l < 0 || l > max_len)
          return error(StatusCode::kInvalidArgument, "sequence_lens[", b, "] is ", l, ", outside [0, ", max_len, "]");
        lens[static_cast<size_t>(b)] = l;
      }
    }
    // Per batch entry: its final states and its scan outputs; stacked over the batch at the end.
    std::vector<ScanOutput> final_states;
    for (size_t i = 0; i < num_state_; ++i) final_states.emplace_back(body_->outputs[i].name);
    std::vector<std::vector<ScanOutput>> per_batch;
    std::vector<Tensor> slices(num_scan_in_);
    std::vector<const Tensor*> slice_ptrs(num_scan_in_);
    const std::vector<int64_t> axes(num_scan_in_, 0);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> states;
      for (const Tensor* s : states_in) states.push_back(Value::of(slice_along(*s, 0, b)));
      for (size_t j = 0; j < num_scan_in_; ++j) {
        slices[j] = slice_along(*xs[j], 0, b);
        slice_ptrs[j] = &slices[j];
      }
      per_batch.push_back(new_scan_outputs());
      HI_RETURN_IF_ERROR(run_steps(ctx, states, slice_ptrs, axes, lens[static_cast<size_t>(b)], per_batch.back()));
      for (size_t i = 0; i < num_state_; ++i) HI_RETURN_IF_ERROR(final_states[i].add(states[i], b));
    }
    for (size_t i = 0; i < num_state_; ++i) {
      HI_ASSIGN_OR_RETURN(Tensor t,
                          final_states[i].stack(0, false, body_->outputs[i].type));  // typed by it when batch is 0
      ctx.set_output(i, std::move(t));
    }
    for (size_t k = 0; k < num_scan_out_; ++k) {
      const ir::ValueType& type = body_->outputs[num_state_ + k].type;
      // The element every batch entry is padded with: any entry's first, else the static type.
      Tensor zero;
      for (const auto& entry : per_batch)
        if (entry[k].size()) zero = Tensor::zeros(entry[k].items()[0].dtype(), entry[k].items()[0].shape());
      if (!zero.defined() || zero.dtype() == DType::kUndefined) {
        HI_ASSIGN_OR_RETURN(Tensor empty, ScanOutput(body_->outputs[num_state_ + k].name).stack(0, false, type));
        Shape elem(empty.shape().begin() + 1, empty.shape().end());
        zero = Tensor::zeros(empty.dtype(), elem);
      }
      ScanOutput over_batch(body_->outputs[num_state_ + k].name);
      for (int64_t b = 0; b < batch; ++b) {
        ScanOutput& entry = per_batch[static_cast<size_t>(b)][k];
        while (static_cast<int64_t>(entry.size()) < max_len)
          HI_RETURN_IF_ERROR(entry.add(Value::of(zero), static_cast<int64_t>(entry.size())));
        if (max_len == 0) {
          Shape shape = zero.shape();
          shape.insert(shape.begin(), 0);
          HI_RETURN_IF_ERROR(over_batch.add(Value::of(Tensor::empty(zero.dtype(), shape)), b));
        } else {
          HI_RETURN_IF_ERROR(over_batch.add(Value::of(stack_along(entry.items(), 0, false)), b));
        }
      }
      HI_ASSIGN_OR_RETURN(Tensor t, over_batch.stack(0, false, type));
      ctx.set_output(num_state_ + k, std::move(t));
    }
    return Status::ok();
  }

  int64_t opset_ = 9;
  const ir::Graph* body_ = nullptr;  // owned by the model, which outlives the session
  size_t first_ = 0;                 // 1 for Scan-8 (sequence_lens comes first)
  size_t num_state_ = 0, num_scan_in_ = 0, num_scan_out_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

}  // namespace

HI_REGISTER_OP(Scan, ScanOp)

}  // namespace hi::ops
