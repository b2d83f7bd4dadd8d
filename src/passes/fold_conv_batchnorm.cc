// Conv followed by inference-mode BatchNormalization becomes one Conv with scaled weights and
// a new bias: W' = W * s, B' = (B - mean) * s + beta, s = scale / sqrt(var + epsilon), per
// output channel. Computed in double, rounded once to the weights' type.
#include <cmath>

#include "passes/pass_util.h"

namespace hi::passes {
int fold_conv_batchnorm(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  int folded = 0;
  GraphIndex index(g);
  std::set<int> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& bn = g.nodes[i];
    if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() != 5) continue;
    if (const ir::Attribute* t = bn.attr("training_mode"); t && t->i != 0) continue;
    bool extra_outputs = false;
    for (size_t o = 1; o < bn.outputs.size(); ++o) extra_outputs = extra_outputs || !bn.outputs[o].empty();
    if (extra_outputs) continue;
    const int p = index.producer(bn.inputs[0]);
    if (p < 0 || dead.count(p) || !index.single_use(bn.inputs[0])) continue;
    ir::Node& conv = g.nodes[static_cast<size_t>(p)];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.inputs.size() < 2) continue;
    const Tensor* w = constant(g, index, conv.inputs[1]);
    const Tensor* b = conv.inputs.size() > 2 && !conv.inputs[2].empty() ? constant(g, index, conv.inputs[2]) : nullptr;
    if (!w || (conv.inputs.size() > 2 && !conv.inputs[2].empty() && !b)) continue;
    if (w->dtype() != DType::kFloat32 && w->dtype() != DType::kFloat64) continue;
    const Tensor* scale = constant(g, index, bn.inputs[1]);
    const Tensor* beta = constant(g, index, bn.inputs[2]);
    const Tensor* mean = constant(g, index, bn.inputs[3]);
    const Tensor* var = constant(g, index, bn.inputs[4]);
    const int64_t mo = w->rank() >= 1 ? w->dim(0) : -1;
    auto per_channel = [&](const Tensor* t) {
      return t && t->rank() == 1 && t->dim(0) == mo && dtype_is_float(t->dtype());
    };
    if (!per_channel(scale) || !per_channel(beta) || !per_channel(mean) || !per_channel(var)) continue;
    if (b && !per_channel(b)) continue;
    if (dtype_of_value(types, bn.outputs[0]) != w->dtype()) continue;

    const ir::Attribute* eps_attr = bn.attr("epsilon");
    const double eps = eps_attr ? eps_attr->f : 1e-5;
    const auto sc = as_doubles(*scale), bt = as_doubles(*beta), mu = as_doubles(*mean), vr = as_doubles(*var);
    // y = (conv - mean) * s + beta with s = scale / sqrt(var + eps): conv * s + (beta - mean * s).
    std::vector<double> s(static_cast<size_t>(mo)), shift(static_cast<size_t>(mo));
    for (size_t o = 0; o < static_cast<size_t>(mo); ++o) {
      s[o] = sc[o] / std::sqrt(vr[o] + eps);
      shift[o] = bt[o] - mu[o] * s[o];
    }
    fold_channel_affine_into_conv(g, conv, *w, b, s, shift, "bnfolded");
    conv.outputs[0] = bn.outputs[0];
    dead.insert(static_cast<int>(i));
    ++folded;
  }
  erase_nodes(g, dead);
  return folded;
}

}  // namespace hi::passes
