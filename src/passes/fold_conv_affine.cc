// Conv followed by Mul and Add with constants per output channel (or one value) becomes one
// Conv with scaled weights and a new bias: W' = W * s, B' = B * s + t. Paddle2ONNX writes
// PP-LCNetV3's learnable affine blocks this way (Conv -> Mul(s) -> Add(t) before each
// activation); folded, the activation follows the convolution directly and fuse_conv takes it.
// Any chain of such Mul / Add, each the sole reader of the value before it; computed in double
// and rounded once to the weights' type, like fold_conv_batchnorm.
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

// The values of `c` per output channel (m of them) when it broadcasts against the convolution's
// output [N, M, spatial...] (rank `out_rank`) without changing its shape: one value, or M
// values along axis 1 with every other dim 1. Empty otherwise.
std::vector<double> per_output_channel(const Tensor& c, int64_t m, int64_t out_rank) {
  if (!dtype_is_float(c.dtype()) || c.rank() > out_rank) return {};
  if (c.numel() == 1) return std::vector<double>(static_cast<size_t>(m), c.as_double(0));
  const int64_t channel_axis = c.rank() - (out_rank - 1);  // axis 1 of the output, in c's dims
  if (channel_axis < 0 || c.numel() != m) return {};
  for (int64_t d = 0; d < c.rank(); ++d)
    if (d != channel_axis && c.dim(d) != 1) return {};
  return as_doubles(c);
}

}  // namespace

int fold_conv_affine(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::set<int> dead;
  int folded = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& conv = g.nodes[i];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.inputs.size() < 2 || conv.outputs.size() != 1) continue;
    const Tensor* w = constant(g, index, conv.inputs[1]);
    const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    const Tensor* b = has_bias ? constant(g, index, conv.inputs[2]) : nullptr;
    if (!w || (has_bias && !b) || (w->dtype() != DType::kFloat32 && w->dtype() != DType::kFloat64) || w->rank() < 3)
      continue;
    const ir::ValueType* out_type = types(conv.outputs[0]);
    if (!out_type || !out_type->has_rank() || dtype_of_value(types, conv.outputs[0]) != w->dtype()) continue;
    const int64_t mo = w->dim(0), out_rank = out_type->rank();
    std::vector<double> scale(static_cast<size_t>(mo), 1.0), shift(static_cast<size_t>(mo), 0.0);
    std::string out = conv.outputs[0];
    std::vector<int> chain;
    while (index.single_use(out)) {
      const int r = index.consumers(out)[0];
      const ir::Node& n = g.nodes[static_cast<size_t>(r)];
      if (dead.count(r) || !n.domain.empty() || (n.op_type != "Mul" && n.op_type != "Add") || n.inputs.size() != 2 ||
          n.outputs.size() != 1)
        break;
      const Tensor* c = constant(g, index, other_input(n, out));
      if (!c || n.inputs[0] == n.inputs[1]) break;
      const std::vector<double> v = per_output_channel(*c, mo, out_rank);
      if (v.empty()) break;
      for (size_t o = 0; o < v.size(); ++o) {
        if (n.op_type == "Mul") {
          scale[o] *= v[o];
          shift[o] *= v[o];
        } else {
          shift[o] += v[o];
        }
      }
      chain.push_back(r);
      out = n.outputs[0];
    }
    if (chain.empty()) continue;
    if (b && b->numel() != mo) continue;
    fold_channel_affine_into_conv(g, conv, *w, b, scale, shift, "affine");
    conv.outputs[0] = out;
    dead.insert(chain.begin(), chain.end());
    ++folded;
  }
  erase_nodes(g, dead);
  return folded;
}

}  // namespace hi::passes
