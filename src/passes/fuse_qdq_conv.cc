// A QDQ model's quantized convolution, DequantizeLinear(x) -> Conv(DequantizeLinear(w),
// DequantizeLinear(bias)) [-> Relu] -> QuantizeLinear, becomes one FusedQLinearConv
// (com.hipinfer) computing in integers on the int8 kernel, as ONNX Runtime's QDQ fusion turns it
// into QLinearConv. It runs after the channels-last pass, on channels-last FusedConv nodes, where
// the target has the int8 kernel (elsewhere oneDNN's float32 convolution beats the reference).
// Matched only when the integer form computes what the graph does: x and y quantized per tensor,
// the weights int8 with zero point 0 per tensor or per output channel (axis 0), the bias int32
// with the scale x_scale * w_scale the quantizer gives it; a Relu before QuantizeLinear is the
// floor at y's zero point.
#include <cmath>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool is_op(const ir::Node& n, const char* op) { return n.domain.empty() && n.op_type == op; }

bool all_zero(const Tensor& t) {
  if (t.dtype() == DType::kInt8 || t.dtype() == DType::kUInt8) {
    for (int64_t i = 0; i < t.numel(); ++i)
      if (static_cast<const uint8_t*>(t.raw())[i] != 0) return false;
    return true;
  }
  if (t.dtype() == DType::kInt32) {
    for (int64_t i = 0; i < t.numel(); ++i)
      if (t.data<int32_t>()[i] != 0) return false;
    return true;
  }
  return false;
}

}  // namespace

int fuse_qdq_conv(ir::Model& m, const Target& target) {
  if (!target.int8_convolutions) return 0;
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::set<int> dead, dequantized_inputs;
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& conv = g.nodes[i];
    if (conv.domain != ops::kInternalDomain || conv.op_type != "FusedConv" || int_attr(conv, "channels_last", 0) != 1)
      continue;
    if (const ir::Attribute* p = conv.attr("precision"); p && p->s != "fp32") continue;
    // Grouped (depthwise) convolutions have no int8 kernel (backends/cpu/kernels/int8_conv.cc): the reference
    // would take them (MobileNetV2's 19 ms against 0.2 on oneDNN's float32 kernel between its
    // QuantizeLinear and DequantizeLinear), so they stay float32.
    if (int_attr(conv, "group", 1) != 1) continue;
    const ir::Attribute* act = conv.attr("activation");
    const bool relu = act && act->s == "Relu";
    if (act && !act->s.empty() && !relu) continue;
    if (conv.inputs.size() < 2 || (conv.inputs.size() > 3 && !conv.inputs[3].empty())) continue;  // no residual
    // x: per-tensor DequantizeLinear of 8-bit codes.
    const ir::Node* dx = per_tensor_dequantize(g, index, conv.inputs[0]);
    if (!dx) continue;
    // (x's type is its zero point's; the channels-last names are newer than the type oracle.)
    // w: DequantizeLinear of constant int8 weights, zero point 0, per tensor or along axis 0.
    const int pw = index.producer(conv.inputs[1]);
    if (pw < 0 || dead.count(pw)) continue;
    const ir::Node& dw = g.nodes[static_cast<size_t>(pw)];
    if (!is_op(dw, "DequantizeLinear") || dw.inputs.size() != 3) continue;
    const Tensor* wq = constant(g, index, dw.inputs[0]);
    const Tensor* ws = constant(g, index, dw.inputs[1]);
    const Tensor* wzp = constant(g, index, dw.inputs[2]);
    if (!wq || wq->dtype() != DType::kInt8 || wq->rank() != 4 || !is_float_scale(ws) || !wzp || !all_zero(*wzp))
      continue;
    const int64_t out_channels = wq->dim(0);
    if (ws->numel() != 1 && !(ws->rank() == 1 && ws->numel() == out_channels && int_attr(dw, "axis", 1) % 4 == 0))
      continue;
    // bias: DequantizeLinear of constant int32 with scale x_scale * w_scale, zero point 0.
    const ir::Node* db = nullptr;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) {
      const int pb = index.producer(conv.inputs[2]);
      if (pb < 0 || dead.count(pb)) continue;
      db = &g.nodes[static_cast<size_t>(pb)];
      if (!is_op(*db, "DequantizeLinear") || db->inputs.size() < 2) continue;
      const Tensor* bq = constant(g, index, db->inputs[0]);
      const Tensor* bs = constant(g, index, db->inputs[1]);
      const Tensor* bzp = db->inputs.size() > 2 && !db->inputs[2].empty() ? constant(g, index, db->inputs[2]) : nullptr;
      if (!bq || bq->dtype() != DType::kInt32 || bq->numel() != out_channels || !is_float_scale(bs)) continue;
      if (db->inputs.size() > 2 && !db->inputs[2].empty() && (!bzp || !all_zero(*bzp))) continue;
      const float xs = constant(g, index, dx->inputs[1])->data<float>()[0];
      bool scales_agree = bs->numel() == 1 || bs->numel() == out_channels;
      for (int64_t o = 0; scales_agree && o < out_channels; ++o) {
        const float want = xs * ws->data<float>()[ws->numel() == 1 ? 0 : o];
        const float have = bs->data<float>()[bs->numel() == 1 ? 0 : o];
        scales_agree = std::fabs(have - want) <= 1e-6f * std::fabs(want);
      }
      if (!scales_agree) continue;
    }
    // y: the only reader is a per-tensor QuantizeLinear with constant scale and zero point.
    const int pq = per_tensor_quantize_reader(g, index, conv.outputs[0]);
    if (pq < 0 || dead.count(pq)) continue;
    const ir::Node& q = g.nodes[static_cast<size_t>(pq)];

    ir::Node fusedq;
    fusedq.name = conv.name;
    fusedq.domain = ops::kInternalDomain;
    fusedq.op_type = "FusedQLinearConv";
    fusedq.inputs = {dx->inputs[0], dx->inputs[1], dx->inputs[2], dw.inputs[0],
                     dw.inputs[1],  dw.inputs[2],  q.inputs[1],   q.inputs[2]};
    if (db) fusedq.inputs.push_back(db->inputs[0]);
    fusedq.outputs = {q.outputs[0]};
    for (const char* key : {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"})
      if (const ir::Attribute* a = conv.attr(key)) fusedq.attributes[key] = *a;
    if (relu) fusedq.attributes["activation"] = *act;
    for (int weight_node : {pw, db ? index.producer(conv.inputs[2]) : -1})
      if (weight_node >= 0 && index.single_use(g.nodes[static_cast<size_t>(weight_node)].outputs[0]))
        dead.insert(weight_node);
    dead.insert(pq);
    dequantized_inputs.insert(index.producer(conv.inputs[0]));
    conv = std::move(fusedq);
    ++fused;
  }
  // The DequantizeLinear of x goes too when every reader of it was fused.
  drop_unread(g, index, dequantized_inputs, &dead);
  erase_nodes(g, dead);
  if (fused) m.opsets[ops::kInternalDomain] = 1;
  return fused;
}

}  // namespace hi::passes
