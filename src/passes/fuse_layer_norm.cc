// LayerNorm written out in elementwise ops, as exporters before ai.onnx's LayerNormalization
// (opset 17) write it (PyTorch's BERT at opset 14, Paddle2ONNX's PP-OCR recogniser), becomes one
// LayerNormalization over the last axis:
//   mean = ReduceMean(x, last axis); d = Sub(x, mean); var = ReduceMean(Pow(d, 2) or Mul(d, d))
//   y = d / Sqrt(var + eps) [* gamma] [+ beta]
// with every intermediate read only inside the pattern (d by the square and the division) and
// gamma, beta constants of the last axis's size. In hipinfer's domain where the graph's opset
// predates 17. The fused op's statistics are computed in double: within float32 rounding of
// the unfused ops.
#include <cmath>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

class LayerNormMatcher {
 public:
  LayerNormMatcher(const ir::Graph& g, const GraphIndex& index, const TypeOracle& types)
      : g_(g), index_(index), types_(types) {}

  struct Match {
    std::string x, gamma, beta, y;  // gamma / beta empty when absent
    float epsilon = 0;
    int64_t width = 0;       // the last axis's size
    std::vector<int> inner;  // nodes replaced, the one that ends the pattern excluded
  };

  // `n` (the Div, or the Mul / Add after it) ends a LayerNorm: fills m.
  bool match(int node, Match* m) const {
    const ir::Node& n = g_.nodes[static_cast<size_t>(node)];
    m->inner.clear();
    m->gamma.clear();
    m->beta.clear();
    m->y = n.outputs.empty() ? "" : n.outputs[0];
    // Walking back from the end: [Add beta] <- [Mul gamma] <- Div.
    int cur = node;
    auto step_back = [&](int from, int to) {  // `to` produces what `from` reads; from is inner unless the end
      if (from != node) m->inner.push_back(from);
      return index_.single_use(g_.nodes[static_cast<size_t>(to)].outputs[0]);
    };
    if (is(n, "Add")) {
      int before = -1;
      if (!per_last_axis_constant(n, &m->beta, &before) || !step_back(cur, before)) return false;
      cur = before;
    }
    if (const ir::Node& mul = g_.nodes[static_cast<size_t>(cur)]; is(mul, "Mul")) {
      int before = -1;
      if (per_last_axis_constant(mul, &m->gamma, &before)) {
        if (!step_back(cur, before)) return false;
        cur = before;
      }
    }
    const int div = cur;
    const ir::Node& dv = g_.nodes[static_cast<size_t>(div)];
    if (!is(dv, "Div") || dv.inputs.size() != 2) return false;
    if (div != node) m->inner.push_back(div);
    // d / Sqrt(var + eps)
    const int sqrt = sole_producer(dv.inputs[1], "Sqrt");
    if (sqrt < 0) return false;
    const int add_eps = sole_producer(g_.nodes[static_cast<size_t>(sqrt)].inputs[0], "Add");
    if (add_eps < 0) return false;
    const ir::Node& ae = g_.nodes[static_cast<size_t>(add_eps)];
    std::string var;
    for (int i = 0; i < 2 && var.empty(); ++i)
      if (ae.inputs.size() == 2 && scalar_constant(g_, index_, ae.inputs[static_cast<size_t>(1 - i)], &m->epsilon))
        var = ae.inputs[static_cast<size_t>(i)];
    if (var.empty() || !(m->epsilon >= 0)) return false;
    const int var_mean = sole_producer(var, "ReduceMean");
    if (var_mean < 0 || !reduces_last_axis(g_.nodes[static_cast<size_t>(var_mean)])) return false;
    // The square of d: Pow(d, 2) or Mul(d, d).
    const std::string& sq = g_.nodes[static_cast<size_t>(var_mean)].inputs[0];
    const int square = index_.producer(sq);
    if (square < 0 || !index_.single_use(sq)) return false;
    const ir::Node& sn = g_.nodes[static_cast<size_t>(square)];
    const std::string& d = dv.inputs[0];
    float two = 0;
    const bool squares_d = sn.inputs.size() == 2 && sn.inputs[0] == d &&
                           ((is(sn, "Pow") && scalar_constant(g_, index_, sn.inputs[1], &two) && two == 2.f) ||
                            (is(sn, "Mul") && sn.inputs[1] == d));
    if (!squares_d) return false;
    // d = Sub(x, ReduceMean(x)), read by the square and the division only.
    const int sub = index_.producer(d);
    if (sub < 0 || index_.is_graph_output(d)) return false;
    for (int c : index_.consumers(d))
      if (c != square && c != div) return false;
    const ir::Node& sb = g_.nodes[static_cast<size_t>(sub)];
    if (!is(sb, "Sub") || sb.inputs.size() != 2) return false;
    const int mean = sole_producer(sb.inputs[1], "ReduceMean");
    if (mean < 0) return false;
    const ir::Node& mn = g_.nodes[static_cast<size_t>(mean)];
    if (mn.inputs.empty() || mn.inputs[0] != sb.inputs[0] || !reduces_last_axis(mn)) return false;
    m->x = sb.inputs[0];
    const ir::ValueType* xt = types_(m->x);
    if (!xt || xt->kind != ir::ValueKind::kTensor || xt->dtype != DType::kFloat32 || xt->rank() < 1) return false;
    const ir::Dim& last = (*xt->shape)[static_cast<size_t>(xt->rank() - 1)];
    if (!last.is_known()) return false;
    m->width = last.value;
    for (const std::string* c : {&m->gamma, &m->beta}) {
      if (c->empty()) continue;
      const Tensor* t = constant(g_, index_, *c);
      if (!t || t->numel() != m->width) return false;
    }
    m->inner.insert(m->inner.end(), {sqrt, add_eps, var_mean, square, sub, mean});
    return true;
  }

 private:
  static bool is(const ir::Node& n, const char* op) {
    return n.domain.empty() && n.op_type == op && n.outputs.size() == 1;
  }

  int sole_producer(const std::string& v, const char* op) const {
    const int p = index_.producer(v);
    if (p < 0 || !index_.single_use(v) || !is(g_.nodes[static_cast<size_t>(p)], op)) return -1;
    return p;
  }

  // ReduceMean over the last axis only, keeping it (axes as attribute, or input from opset 18).
  bool reduces_last_axis(const ir::Node& n) const {
    if (int_attr(n, "keepdims", 1) != 1 || n.inputs.empty()) return false;
    std::vector<int64_t> axes = ints_attr(n, "axes");
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      const Tensor* t = constant(g_, index_, n.inputs[1]);
      if (!t || t->numel() != 1) return false;
      axes = {static_cast<int64_t>(t->as_double(0))};
    }
    const ir::ValueType* xt = types_(n.inputs[0]);
    if (axes.size() != 1 || !xt || !xt->has_rank()) return false;
    return axes[0] == -1 || axes[0] == xt->rank() - 1;
  }

  // `n` (Mul or Add) combines a value with a constant of the last axis's size: the constant's
  // name into *c, the value's producer into *from.
  bool per_last_axis_constant(const ir::Node& n, std::string* c, int* from) const {
    if (n.inputs.size() != 2) return false;
    for (int i = 0; i < 2; ++i) {
      const std::string& k = n.inputs[static_cast<size_t>(1 - i)];
      const Tensor* t = constant(g_, index_, k);
      if (!t || t->dtype() != DType::kFloat32) continue;
      bool trailing = true;  // shape [..., 1, 1, W]: broadcast along the last axis only
      for (size_t d = 0; d + 1 < t->shape().size(); ++d) trailing = trailing && t->shape()[d] == 1;
      const int p = index_.producer(n.inputs[static_cast<size_t>(i)]);
      if (!trailing || p < 0) continue;
      *c = k;
      *from = p;
      return true;
    }
    return false;
  }

  const ir::Graph& g_;
  const GraphIndex& index_;
  const TypeOracle& types_;
};

}  // namespace

int fuse_layer_norm(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  LayerNormMatcher matcher(g, index, types);
  const auto onnx_opset = m.opsets.find("");
  const bool has_standard = onnx_opset != m.opsets.end() && onnx_opset->second >= 17;
  std::set<int> dead;
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    LayerNormMatcher::Match match;
    if (dead.count(static_cast<int>(i)) || !matcher.match(static_cast<int>(i), &match)) continue;
    bool taken = false;
    for (int k : match.inner) taken = taken || dead.count(k) > 0;
    if (taken) continue;
    dead.insert(match.inner.begin(), match.inner.end());
    std::string gamma = match.gamma;
    if (gamma.empty()) {  // LayerNormalization's Scale is required: ones
      gamma = fresh_name(g, match.y + "/ones");
      Tensor ones = Tensor::empty(DType::kFloat32, {match.width});
      std::fill(ones.data<float>(), ones.data<float>() + match.width, 1.f);
      g.initializers[gamma] = std::move(ones);
    }
    ir::Node ln;
    ln.name = match.y + "/LayerNormalization";
    ln.op_type = "LayerNormalization";
    if (!has_standard) ln.domain = ops::kInternalDomain;
    ln.inputs = {match.x, gamma};
    if (!match.beta.empty()) ln.inputs.push_back(match.beta);
    ln.outputs = {match.y};
    ir::Attribute eps;
    eps.kind = ir::Attribute::Kind::kFloat;
    eps.f = match.epsilon;
    ln.attributes["epsilon"] = eps;
    g.nodes[i] = std::move(ln);
    ++fused;
  }
  erase_nodes(g, dead);
  if (fused && !has_standard) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
