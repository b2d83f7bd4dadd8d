// BERT-style multi-head attention becomes one FusedAttention (com.hipinfer):
//   Q = Transpose(q, [0,2,1,3]); Kt = Transpose(k, [0,2,3,1]); V = Transpose(v, [0,2,1,3])
//   P = Softmax(Add(Div(MatMul(Q, Kt), c), mask))       (Mul by 1/c instead of Div; mask optional)
//   Y = Transpose(MatMul(P, V), [0,2,1,3])
// -> Y = FusedAttention(q, k, v, mask, scale = 1/c), with q, k, v, Y in [B, S, H, D]. The score
// matrix and the four head transposes disappear.
#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool has_perm(const ir::Node& n, const std::vector<int64_t>& perm) {
  const ir::Attribute* p = n.attr("perm");
  return n.op_type == "Transpose" && n.domain.empty() && p && p->ints == perm;
}

}  // namespace

int fuse_attention(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  GraphIndex idx(g);
  std::set<int> dead;
  int fused = 0;
  auto node = [&](int i) -> ir::Node& { return g.nodes[static_cast<size_t>(i)]; };
  // The single reader of v with the given op type, or -1.
  auto sole = [&](const std::string& v, const char* op) -> int {
    if (!idx.single_use(v)) return -1;
    const int c = idx.consumers(v)[0];
    return !dead.count(c) && node(c).op_type == op && node(c).domain.empty() ? c : -1;
  };
  // The producer of v if it is a single-use Transpose with `perm`, or -1.
  auto transposed = [&](const std::string& v, const std::vector<int64_t>& perm) -> int {
    const int p = idx.producer(v);
    return p >= 0 && !dead.count(p) && idx.single_use(v) && has_perm(node(p), perm) ? p : -1;
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& qk = g.nodes[i];
    if (qk.op_type != "MatMul" || !qk.domain.empty() || qk.inputs.size() != 2 || dead.count(static_cast<int>(i)))
      continue;
    if (dtype_of_value(types, qk.outputs[0]) != DType::kFloat32) continue;
    const int tq = transposed(qk.inputs[0], {0, 2, 1, 3});
    const int tk = transposed(qk.inputs[1], {0, 2, 3, 1});
    if (tq < 0 || tk < 0) continue;
    std::set<int> matched = {static_cast<int>(i), tq, tk};
    std::string cur = qk.outputs[0];
    float c = 0, scale = 0;
    int sc = sole(cur, "Div");
    if (sc >= 0 && node(sc).inputs[0] == cur && scalar_constant(g, idx, node(sc).inputs[1], &c) && c != 0.f) {
      scale = 1.f / c;
    } else if ((sc = sole(cur, "Mul")) >= 0 && scalar_constant(g, idx, other_input(node(sc), cur), &c)) {
      scale = c;
    } else {
      continue;
    }
    matched.insert(sc);
    cur = node(sc).outputs[0];
    std::string mask;
    if (const int add = sole(cur, "Add"); add >= 0) {
      mask = other_input(node(add), cur);
      if (mask.empty() || dtype_of_value(types, mask) != DType::kFloat32) continue;
      matched.insert(add);
      cur = node(add).outputs[0];
    }
    const int sm = sole(cur, "Softmax");
    if (sm < 0) continue;
    const ir::Attribute* axis = node(sm).attr("axis");
    const int64_t opset = m.opset("");
    const bool last_axis = axis ? (axis->i == -1 || axis->i == 3) : opset >= 13;
    if (!last_axis) continue;
    matched.insert(sm);
    const int pv = sole(node(sm).outputs[0], "MatMul");
    if (pv < 0 || node(pv).inputs[0] != node(sm).outputs[0]) continue;
    const int tv = transposed(node(pv).inputs[1], {0, 2, 1, 3});
    const int out = sole(node(pv).outputs[0], "Transpose");
    if (tv < 0 || out < 0 || !has_perm(node(out), {0, 2, 1, 3})) continue;
    matched.insert({pv, tv, out});
    // The mask is read where the Add was, after Q, K and V: its producer is before the Add in
    // any valid order, and the fused node takes the final Transpose's place (topo_sort fixes
    // the rest).
    ir::Node fusedn;
    fusedn.name = qk.name.empty() ? node(out).outputs[0] + "/FusedAttention" : qk.name + "/FusedAttention";
    fusedn.op_type = "FusedAttention";
    fusedn.domain = ops::kInternalDomain;
    fusedn.inputs = {node(tq).inputs[0], node(tk).inputs[0], node(tv).inputs[0]};
    if (!mask.empty()) fusedn.inputs.push_back(mask);
    fusedn.outputs = {node(out).outputs[0]};
    ir::Attribute s;
    s.kind = ir::Attribute::Kind::kFloat;
    s.f = scale;
    fusedn.attributes["scale"] = s;
    matched.erase(out);
    node(out) = std::move(fusedn);
    dead.insert(matched.begin(), matched.end());
    ++fused;
  }
  erase_nodes(g, dead);
  if (fused) {
    m.opsets[ops::kInternalDomain] = 1;
    topo_sort(g);
  }
  return fused;
}

}  // namespace hi::passes
