// A QDQ model's quantized Add, DequantizeLinear(a) + DequantizeLinear(b) -> QuantizeLinear (the
// residual sums of a quantized ResNet), becomes one QLinearAdd (com.hipinfer) over the 8-bit
// codes: one pass reading two byte tensors and writing one instead of three ops through float32
// tensors, with the same codes (each step rounds as the ops do). Per-tensor scales and zero
// points only. Runs after the channels-last pass (QLinearAdd is elementwise: any layout).
#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {

int fuse_qdq_add(ir::Model& m) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::set<int> dead, dequantized;
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& add = g.nodes[i];
    if (!add.domain.empty() || add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    const ir::Node* da = per_tensor_dequantize(g, index, add.inputs[0]);
    const ir::Node* db = per_tensor_dequantize(g, index, add.inputs[1]);
    if (!da || !db) continue;
    const int pq = per_tensor_quantize_reader(g, index, add.outputs[0]);
    if (pq < 0 || dead.count(pq)) continue;
    const ir::Node& q = g.nodes[static_cast<size_t>(pq)];
    ir::Node fused_add;
    fused_add.name = add.name;
    fused_add.domain = ops::kInternalDomain;
    fused_add.op_type = "QLinearAdd";
    fused_add.inputs = {da->inputs[0], da->inputs[1], da->inputs[2], db->inputs[0],
                        db->inputs[1], db->inputs[2], q.inputs[1],   q.inputs[2]};
    fused_add.outputs = {q.outputs[0]};
    dequantized.insert(index.producer(add.inputs[0]));
    dequantized.insert(index.producer(add.inputs[1]));
    dead.insert(pq);
    add = std::move(fused_add);
    ++fused;
  }
  drop_unread(g, index, dequantized, &dead);  // the DequantizeLinear nodes nothing else reads
  erase_nodes(g, dead);
  if (fused) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
