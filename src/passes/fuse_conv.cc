// Conv [+ Add(residual)] [+ activation] becomes one FusedConv (com.hipinfer): the residual sum
// and the activation run as post-ops of the convolution instead of as separate passes over
// memory. float32 convolutions only; with precision bf16 every one becomes a FusedConv that
// computes in bfloat16.
#include <limits>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

// The activation `n` applies to its first input, as FusedConv attributes; false if it is not
// one the fused kernels take (or its parameters are not constants).
bool as_activation(const ir::Graph& g, const GraphIndex& index, const ir::Node& n, std::string* name,
                   std::vector<float>* params) {
  if (n.inputs.empty() || n.outputs.size() != 1) return false;
  if (is_hard_swish(n)) {
    *name = "HardSwish";
    params->clear();
    return n.inputs.size() == 1;
  }
  if (!n.domain.empty()) return false;
  auto attr_f = [&](const char* key, float def) {
    const ir::Attribute* a = n.attr(key);
    return a ? a->f : def;
  };
  params->clear();
  const std::string& op = n.op_type;
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh") {
    if (n.inputs.size() != 1) return false;
    *name = op;
    return true;
  }
  if (op == "LeakyRelu") {
    *name = op;
    *params = {attr_f("alpha", 0.01f)};
    return true;
  }
  if (op == "HardSigmoid") {
    *name = op;
    *params = {attr_f("alpha", 0.2f), attr_f("beta", 0.5f)};
    return true;
  }
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (n.attr("min") || n.attr("max")) {  // Clip before opset 11
      lo = attr_f("min", lo);
      hi = attr_f("max", hi);
    } else {
      if (n.inputs.size() > 1 && !n.inputs[1].empty() && !scalar_constant(g, index, n.inputs[1], &lo)) return false;
      if (n.inputs.size() > 2 && !n.inputs[2].empty() && !scalar_constant(g, index, n.inputs[2], &hi)) return false;
    }
    *name = op;
    *params = {lo, hi};
    return true;
  }
  return false;
}

}  // namespace

int fuse_conv(ir::Model& m, const TypeOracle& types, const std::string& precision) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::set<int> dead;
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& conv = g.nodes[i];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1) continue;
    if (dtype_of_value(types, conv.outputs[0]) != DType::kFloat32) continue;
    std::string out = conv.outputs[0];
    std::string residual, act_name;
    std::vector<float> act_params;
    auto sole_reader = [&](const std::string& v) -> ir::Node* {
      if (!index.single_use(v)) return nullptr;
      const int c = index.consumers(v)[0];
      return dead.count(c) ? nullptr : &g.nodes[static_cast<size_t>(c)];
    };
    // Residual: Add(conv, Z) with Z of the output's exact shape (no broadcasting).
    if (ir::Node* add = sole_reader(out); add && add->op_type == "Add" && add->domain.empty()) {
      const std::string z = other_input(*add, out);
      if (!z.empty() && z != out && same_shape(types, z, out) && same_shape(types, add->outputs[0], out)) {
        residual = z;
        dead.insert(index.consumers(out)[0]);
        out = add->outputs[0];
      }
    }
    if (ir::Node* act = sole_reader(out);
        act && act->inputs[0] == out && as_activation(g, index, *act, &act_name, &act_params)) {
      dead.insert(index.consumers(out)[0]);
      out = act->outputs[0];
    }
    const bool changed = out != conv.outputs[0];
    if (!changed && precision != "bf16") continue;
    conv.domain = ops::kInternalDomain;
    conv.op_type = "FusedConv";
    conv.inputs.resize(3);
    if (!residual.empty()) conv.inputs.push_back(residual);
    conv.outputs[0] = out;
    if (!act_name.empty()) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kString;
      a.s = act_name;
      conv.attributes["activation"] = a;
      ir::Attribute p;
      p.kind = ir::Attribute::Kind::kFloats;
      p.floats = act_params;
      conv.attributes["activation_params"] = p;
    }
    set_precision(conv, precision);
    ++fused;
  }
  erase_nodes(g, dead);
  if (fused) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
