// Shared layout, inference and element loop of the ai.onnx.preview.training optimizers
// (Adagrad, Adam, Momentum). Their inputs are R (learning rate, float scalar), T (update count,
// int64 scalar), then one block per role, each holding one tensor per optimized variable:
// [R, T, X_1..X_n, G_1..G_n, (V_1..V_n), (H_1..H_n)]. The outputs are blocks too, e.g.
// [X_new_1..X_new_n, H_new_1..H_new_n]. Each variable is updated on its own, elementwise.
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/op.h"

namespace hi::ops {

constexpr size_t kMaxOptimizerRoles = 4;  // X, G, V, H (Adam)
constexpr uint64_t kOptimizerTypes = bit(DType::kFloat32) | bit(DType::kFloat64);

// What one optimizer op looks like: its input roles after R and T, and for each output role
// the input role whose type and shape it has.
struct OptimizerLayout {
  const char* op_name;
  std::vector<const char*> input_roles;  // e.g. {"X", "G", "H"}
  std::vector<size_t> output_sources;    // e.g. {0, 2}: X_new like X, H_new like H
};

// The number of optimized variables n, checked against the node's input and output counts.
Result<size_t> optimizer_variable_count(const OptimizerLayout& layout, const ir::Node& node, size_t num_inputs,
                                        size_t num_outputs);

// Static checks (R, T dtypes and ranks; per variable, every role tensor with X's dtype and
// shape) and output types.
Status infer_optimizer(InferContext& ctx, const OptimizerLayout& layout, int64_t opset);

// R and T, checked at run time.
struct OptimizerScalars {
  double r = 0;
  int64_t t = 0;
};
Result<OptimizerScalars> read_optimizer_scalars(RunContext& ctx, const OptimizerLayout& layout);

// Checks one variable's tensors at run time (dtype float/double, same dtype and shape as X).
Status check_optimizer_variable(RunContext& ctx, const OptimizerLayout& layout, size_t n, size_t v, int64_t opset);

// Runs `update(in, out)` per element of every variable, in double: in[r] is the element of
// input role r, out[j] receives output role j. Results round once to the variable's dtype.
template <typename Update>
Status run_optimizer(RunContext& ctx, const OptimizerLayout& layout, int64_t opset, Update update) {
  HI_ASSIGN_OR_RETURN(size_t n, optimizer_variable_count(layout, ctx.node(), ctx.num_inputs(), ctx.num_outputs()));
  const size_t in_roles = layout.input_roles.size(), out_roles = layout.output_sources.size();
  for (size_t v = 0; v < n; ++v) {
    HI_RETURN_IF_ERROR(check_optimizer_variable(ctx, layout, n, v, opset));
    const Tensor& x = ctx.in(2 + v);
    std::array<const Tensor*, kMaxOptimizerRoles> ins{};
    for (size_t r = 0; r < in_roles; ++r) ins[r] = &ctx.in(2 + r * n + v);
    std::array<Tensor*, kMaxOptimizerRoles> outs{};
    for (size_t j = 0; j < out_roles; ++j) outs[j] = &ctx.output(j * n + v, x.dtype(), x.shape());
    dispatch<kOptimizerTypes>(x.dtype(), [&]<typename T>() {
      std::array<double, kMaxOptimizerRoles> in{}, out{};
      for (int64_t i = 0; i < x.numel(); ++i) {
        for (size_t r = 0; r < in_roles; ++r) in[r] = static_cast<double>(ins[r]->data<T>()[i]);
        update(in, out);
        for (size_t j = 0; j < out_roles; ++j) outs[j]->data<T>()[i] = static_cast<T>(out[j]);
      }
    });
  }
  return Status::ok();
}

}  // namespace hi::ops
