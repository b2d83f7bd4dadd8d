// MatMul(A, W) + Add(bias) [+ Add(residual)] [+ activation] becomes one FusedMatMul
// (com.hipinfer) when W is a constant 2-D float32 matrix and the bias a constant over the last
// dim: the bias, residual and activation run in the GEMM's epilogue. The activation may be
// the exact GELU as exporters write it: Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5).
#include <cmath>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool near(float a, float b) { return std::fabs(a - b) <= 1e-4f * std::fabs(b); }

struct Match {
  std::set<int> nodes;  // matched nodes, to remove
  std::string out;      // the value the pattern ends in
};

// The exact-GELU subgraph reading x; empty `out` when there is none.
Match match_gelu(const ir::Graph& g, const GraphIndex& idx, const std::string& x) {
  Match none;
  const auto& readers = idx.consumers(x);
  if (readers.size() != 2 || idx.is_graph_output(x)) return none;
  auto node = [&](int i) -> const ir::Node& { return g.nodes[static_cast<size_t>(i)]; };
  auto sole = [&](const std::string& v, const char* op) -> int {
    if (!idx.single_use(v)) return -1;
    const int c = idx.consumers(v)[0];
    return node(c).op_type == op && node(c).domain.empty() ? c : -1;
  };
  for (int first : readers) {
    const ir::Node& scale = node(first);
    float c = 0;
    const bool div = scale.op_type == "Div" && scale.inputs.size() == 2 && scale.inputs[0] == x &&
                     scalar_constant(g, idx, scale.inputs[1], &c) && near(c, std::sqrt(2.f));
    const bool mul =
        scale.op_type == "Mul" && scalar_constant(g, idx, other_input(scale, x), &c) && near(c, 1.f / std::sqrt(2.f));
    if (!scale.domain.empty() || (!div && !mul)) continue;
    const int erf = sole(scale.outputs[0], "Erf");
    if (erf < 0) continue;
    const int add = sole(node(erf).outputs[0], "Add");
    if (add < 0 || !scalar_constant(g, idx, other_input(node(add), node(erf).outputs[0]), &c) || !near(c, 1.f))
      continue;
    const int prod = sole(node(add).outputs[0], "Mul");
    if (prod < 0) continue;
    const int second = readers[0] == first ? readers[1] : readers[0];
    const ir::Node& p = node(prod);
    if (other_input(p, node(add).outputs[0]) == x && second == prod) {
      // (x * (erf + 1)) * 0.5
      const int half = sole(p.outputs[0], "Mul");
      if (half < 0 || !scalar_constant(g, idx, other_input(node(half), p.outputs[0]), &c) || !near(c, 0.5f)) continue;
      return {{first, erf, add, prod, half}, node(half).outputs[0]};
    }
    // (x * 0.5) * (erf + 1)
    const ir::Node& h = node(second);
    if (h.op_type != "Mul" || !h.domain.empty() || !scalar_constant(g, idx, other_input(h, x), &c) || !near(c, 0.5f))
      continue;
    if (other_input(p, node(add).outputs[0]) != h.outputs[0] || !idx.single_use(h.outputs[0])) continue;
    return {{first, erf, add, prod, second}, p.outputs[0]};
  }
  return none;
}

}  // namespace

int fuse_matmul(ir::Model& m, const TypeOracle& types, const std::string& precision) {
  ir::Graph& g = m.graph;
  GraphIndex idx(g);
  std::set<int> dead;
  int fused = 0;
  auto node = [&](int i) -> ir::Node& { return g.nodes[static_cast<size_t>(i)]; };
  auto sole_reader = [&](const std::string& v, const char* op) -> int {
    if (!idx.single_use(v)) return -1;
    const int c = idx.consumers(v)[0];
    return !dead.count(c) && node(c).op_type == op && node(c).domain.empty() ? c : -1;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& mm = g.nodes[i];
    if (mm.op_type != "MatMul" || !mm.domain.empty() || mm.inputs.size() != 2) continue;
    const Tensor* w = constant(g, idx, mm.inputs[1]);
    const ir::ValueType* a = types(mm.inputs[0]);
    if (!w || w->dtype() != DType::kFloat32 || w->rank() != 2 || !a || a->dtype != DType::kFloat32 || a->rank() < 2)
      continue;
    const int64_t n = w->dim(1);
    // Bias over the last dim.
    const int add = sole_reader(mm.outputs[0], "Add");
    if (add < 0) continue;
    const std::string bias = other_input(node(add), mm.outputs[0]);
    const Tensor* b = bias.empty() ? nullptr : constant(g, idx, bias);
    if (!b || b->dtype() != DType::kFloat32 || b->numel() != n || b->rank() < 1 || b->rank() > a->rank() ||
        b->dim(b->rank() - 1) != n)
      continue;
    std::set<int> matched = {add};
    std::string out = node(add).outputs[0], residual, act;
    // Residual of the same shape, or of a shape that may be the same (FusedMatMul broadcasts one
    // that is not).
    if (const int radd = sole_reader(out, "Add"); radd >= 0) {
      const std::string z = other_input(node(radd), out);
      if (!z.empty() && dtype_of_value(types, z) == DType::kFloat32 && maybe_same_shape(types, z, out)) {
        residual = z;
        matched.insert(radd);
        out = node(radd).outputs[0];
      }
    }
    // Activation.
    if (const int r = sole_reader(out, "Relu"); r >= 0) {
      act = "Relu";
      matched.insert(r);
      out = node(r).outputs[0];
    } else if (const int gl = sole_reader(out, "Gelu"); gl >= 0) {
      const ir::Attribute* approx = node(gl).attr("approximate");
      act = approx && approx->s == "tanh" ? "GeluTanh" : "Gelu";
      matched.insert(gl);
      out = node(gl).outputs[0];
    } else if (residual.empty()) {
      Match gm = match_gelu(g, idx, out);
      bool free = !gm.out.empty();
      for (int k : gm.nodes) free = free && !dead.count(k);
      if (free) {
        act = "Gelu";
        matched.insert(gm.nodes.begin(), gm.nodes.end());
        out = gm.out;
      }
    }
    mm.domain = ops::kInternalDomain;
    mm.op_type = "FusedMatMul";
    mm.inputs.push_back(bias);
    if (!residual.empty()) mm.inputs.push_back(residual);
    mm.outputs[0] = out;
    if (!act.empty()) {
      ir::Attribute at;
      at.kind = ir::Attribute::Kind::kString;
      at.s = act;
      mm.attributes["activation"] = at;
    }
    set_precision(mm, precision);
    dead.insert(matched.begin(), matched.end());
    ++fused;
  }
  erase_nodes(g, dead);
  if (fused) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
