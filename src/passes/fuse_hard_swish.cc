// Hard-swish written out in elementwise ops, as exporters without the HardSwish op write it
// (Paddle2ONNX's PP-OCR models, PyTorch before opset 14), becomes one HardSwish node (in
// hipinfer's domain where the graph's opset predates ai.onnx's, 14), which fuse_conv then
// folds into the convolution before it:
//   Mul(x, Clip(Add(x, 3), 0, 6)) then Div by 6 or Mul by 1/6, either operand order, the
//   division also allowed on the Clip before the Mul;
//   Mul(x, HardSigmoid(x, alpha 1/6, beta 0.5)).
// Each intermediate value must have no other reader. The result differs from the unfused ops
// by float32 rounding only (x * (x + 3) / 6 against x * (x / 6 + 0.5)).
#include <cmath>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool near(float v, float want) { return std::fabs(v - want) <= 1e-6f * std::fabs(want); }

class HardSwishMatcher {
 public:
  HardSwishMatcher(const ir::Graph& g, const GraphIndex& index) : g_(g), index_(index) {}

  // If `n` ends a hard-swish, its x and the nodes it replaces (n's own index excluded).
  bool match(const ir::Node& n, std::string* x, std::vector<int>* inner) const {
    inner->clear();
    if (!n.domain.empty() || n.inputs.size() != 2 || n.outputs.size() != 1) return false;
    // A final scaling by 1/6 (Div by 6 or Mul by 1/6) of Mul(x, Clip(x + 3, 0, 6)).
    if (const std::string* scaled = scaled_by_sixth(n)) {
      const ir::Node* mul = sole_producer(*scaled, "Mul", inner);
      return mul && x_times(*mul, inner, x, /*clip_scaled=*/false);
    }
    // Mul(x, Clip(x + 3, 0, 6) / 6) or Mul(x, HardSigmoid(x)).
    return n.op_type == "Mul" && x_times(n, inner, x, /*clip_scaled=*/true);
  }

 private:
  // The input of `n` that it divides by 6 or multiplies by 1/6, or null.
  const std::string* scaled_by_sixth(const ir::Node& n) const {
    float c = 0;
    if (n.inputs.size() != 2) return nullptr;
    if (n.op_type == "Div" && scalar_constant(g_, index_, n.inputs[1], &c) && near(c, 6.f)) return &n.inputs[0];
    if (n.op_type != "Mul") return nullptr;
    for (int i = 0; i < 2; ++i)
      if (scalar_constant(g_, index_, n.inputs[static_cast<size_t>(i)], &c) && near(c, 1.f / 6.f))
        return &n.inputs[static_cast<size_t>(1 - i)];
    return nullptr;
  }

  // The node of `op_type` producing `v`, when v has no other reader; appends its index to inner.
  const ir::Node* sole_producer(const std::string& v, const char* op_type, std::vector<int>* inner) const {
    const int p = index_.producer(v);
    if (p < 0 || !index_.single_use(v)) return nullptr;
    const ir::Node& n = g_.nodes[static_cast<size_t>(p)];
    if (!n.domain.empty() || n.op_type != op_type || n.outputs.size() != 1) return nullptr;
    inner->push_back(p);
    return &n;
  }

  // `mul` is Mul(x, gate(x)): gate Clip(x + 3, 0, 6) (divided by 6 when clip_scaled) or, when
  // clip_scaled, HardSigmoid(x) with alpha 1/6 and beta 0.5.
  bool x_times(const ir::Node& mul, std::vector<int>* inner, std::string* x, bool clip_scaled) const {
    if (mul.inputs.size() != 2) return false;
    const size_t before = inner->size();
    for (int side = 0; side < 2; ++side) {
      inner->resize(before);
      const std::string& cand_x = mul.inputs[static_cast<size_t>(side)];
      const std::string& gate = mul.inputs[static_cast<size_t>(1 - side)];
      if (cand_x == gate) continue;
      std::string clipped = gate;
      if (clip_scaled) {
        const int p = index_.producer(gate);
        if (p < 0) continue;
        const ir::Node& gn = g_.nodes[static_cast<size_t>(p)];
        if (gn.op_type == "HardSigmoid" && gn.domain.empty() && index_.single_use(gate) && gn.inputs.size() == 1 &&
            gn.inputs[0] == cand_x && near(float_attr(gn, "alpha", 0.2f), 1.f / 6.f) &&
            near(float_attr(gn, "beta", 0.5f), 0.5f)) {
          inner->push_back(p);
          *x = cand_x;
          return true;
        }
        const std::string* s = index_.single_use(gate) ? scaled_by_sixth(gn) : nullptr;
        if (!s) continue;
        inner->push_back(p);
        clipped = *s;
      }
      if (clip_of_x_plus_3(clipped, cand_x, inner)) {
        *x = cand_x;
        return true;
      }
    }
    inner->resize(before);
    return false;
  }

  // `v` is Clip(Add(x, 3), 0, 6), each with no other reader.
  bool clip_of_x_plus_3(const std::string& v, const std::string& x, std::vector<int>* inner) const {
    const ir::Node* clip = sole_producer(v, "Clip", inner);
    if (!clip || clip->inputs.empty()) return false;
    float lo = 0, hi = 0;
    if (clip->attr("min") || clip->attr("max")) {  // Clip before opset 11
      lo = float_attr(*clip, "min", -INFINITY);
      hi = float_attr(*clip, "max", INFINITY);
    } else if (clip->inputs.size() != 3 || !scalar_constant(g_, index_, clip->inputs[1], &lo) ||
               !scalar_constant(g_, index_, clip->inputs[2], &hi)) {
      return false;
    }
    if (lo != 0.f || !near(hi, 6.f)) return false;
    const ir::Node* add = sole_producer(clip->inputs[0], "Add", inner);
    if (!add || add->inputs.size() != 2) return false;
    float three = 0;
    for (int i = 0; i < 2; ++i)
      if (add->inputs[static_cast<size_t>(i)] == x &&
          scalar_constant(g_, index_, add->inputs[static_cast<size_t>(1 - i)], &three) && near(three, 3.f))
        return true;
    return false;
  }

  const ir::Graph& g_;
  const GraphIndex& index_;
};

}  // namespace

int fuse_hard_swish(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  HardSwishMatcher matcher(g, index);
  std::set<int> dead;
  int fused = 0;
  // ai.onnx has HardSwish from opset 14; before that the node goes in hipinfer's domain.
  const auto onnx_opset = m.opsets.find("");
  const bool has_standard_hard_swish = onnx_opset != m.opsets.end() && onnx_opset->second >= 14;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& n = g.nodes[i];
    std::string x;
    std::vector<int> inner;
    if (dead.count(static_cast<int>(i)) || !matcher.match(n, &x, &inner)) continue;
    if (dtype_of_value(types, x) != DType::kFloat32) continue;
    bool taken = false;
    for (int k : inner) taken = taken || dead.count(k) > 0;
    if (taken) continue;
    dead.insert(inner.begin(), inner.end());
    ir::Node hs;
    hs.name = n.name.empty() ? n.outputs[0] + "/HardSwish" : n.name + "/HardSwish";
    hs.op_type = "HardSwish";
    if (!has_standard_hard_swish) hs.domain = ops::kInternalDomain;
    hs.inputs = {x};
    hs.outputs = {n.outputs[0]};
    n = std::move(hs);
    ++fused;
  }
  erase_nodes(g, dead);
  if (fused && !has_standard_hard_swish) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
