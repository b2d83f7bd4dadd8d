// ONNX Attention (opsets 23-25) on the online-softmax kernel (kernels/attention.cu): 4-D
// [B, H, S, D] or 3-D [B, S, H * D] float32 Q, K, V, grouped-query heads, a float32 (added) or
// bool (false masks) attn_mask that may be shorter than the keys, is_causal, softcap, the sliding
// window, a row with no key left giving zeros. Not on the GPU: the KV cache (past_key/past_value,
// present_* outputs), nonpad_kv_seqlen, the qk_matmul_output output and a softmax_precision other
// than float32.
#include <cmath>

#include "backends/gpu/ops/attention_mask.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Attention final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    causal_ = ctx.get_int("is_causal", 0) != 0;
    q_heads_ = ctx.get_int("q_num_heads", 0);
    kv_heads_ = ctx.get_int("kv_num_heads", 0);
    has_scale_ = ctx.has("scale");
    scale_ = ctx.get_float("scale", 1.f);
    softcap_ = ctx.get_float("softcap", 0.f);
    if (ctx.opset() >= 25) {
      left_window_ = ctx.get_int("left_window_size", -1);
      right_window_ = ctx.get_int("right_window_size", -1);
    }
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const Shape& q = ctx.input(0).shape;
    const Shape& k = ctx.input(1).shape;
    const Shape& v = ctx.input(2).shape;
    AttentionDesc d;
    if (q.size() == 4) {
      d.heads_first = true;
      d.batch = q[0];
      d.heads = q[1];
      d.q_len = q[2];
      d.head_size = q[3];
      d.kv_heads = k[1];
      d.kv_len = k[2];
      d.value_size = v[3];
    } else {  // 3-D: [B, S, H * D], the heads from the attributes
      HI_RETURN_IF(q_heads_ <= 0 || kv_heads_ <= 0, kInvalidArgument,
                   "Attention: 3-D Q, K and V need q_num_heads and kv_num_heads");
      d.batch = q[0];
      d.q_len = q[1];
      d.heads = q_heads_;
      d.head_size = q[2] / q_heads_;
      d.kv_heads = kv_heads_;
      d.kv_len = k[1];
      d.value_size = v[2] / kv_heads_;
    }
    d.scale = has_scale_ ? scale_ : 1.f / std::sqrt(static_cast<float>(d.head_size));
    d.softcap = softcap_;
    d.causal = causal_;
    d.left_window = left_window_;
    d.right_window = right_window_;
    d.masked_rows_zero = true;
    const void* mask = nullptr;
    if (ctx.has_input(3)) {
      const DeviceValue& m = ctx.input(3);
      HI_RETURN_IF(m.shape.empty(), kInvalidArgument, "Attention: attn_mask must have rank >= 1");
      d.mask_len = m.shape.back();
      d.mask_is_bool = m.dtype == DType::kBool;
      HI_RETURN_IF_ERROR(set_mask_strides(m.shape, {d.batch, d.heads, d.q_len, d.mask_len}, &d));
      mask = m.ptr;
    }
    return attention(d, static_cast<const float*>(ctx.input(0).ptr), static_cast<const float*>(ctx.input(1).ptr),
                     static_cast<const float*>(ctx.input(2).ptr), mask, static_cast<float*>(ctx.output(0).ptr),
                     ctx.stream());
  }

 private:
  bool causal_ = false, has_scale_ = false;
  int64_t q_heads_ = 0, kv_heads_ = 0, left_window_ = -1, right_window_ = -1;
  float scale_ = 1.f, softcap_ = 0.f;
};

}  // namespace

std::string attention_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const auto has = [&](size_t i) { return i < node.inputs.size() && !node.inputs[i].empty(); };
  for (size_t i = 0; i < 3; ++i)
    if (dtype_of(inputs, i) != DType::kFloat32)
      return "no GPU kernel for Attention on " + std::string(dtype_name(dtype_of(inputs, i))) + " (float32)";
  if (has(3) && dtype_of(inputs, 3) != DType::kFloat32 && dtype_of(inputs, 3) != DType::kBool)
    return "no GPU kernel for Attention with a " + std::string(dtype_name(dtype_of(inputs, 3))) +
           " attn_mask (float32, bool)";
  if (has(4) || has(5)) return "no GPU kernel for Attention with a KV cache (past_key, past_value)";
  if (has(6)) return "no GPU kernel for Attention with nonpad_kv_seqlen";
  for (size_t o = 1; o < node.outputs.size(); ++o)
    if (!node.outputs[o].empty())
      return "no GPU kernel for Attention's present_key, present_value and qk_matmul_output outputs";
  if (node.attr("softmax_precision") && attr_int(node, "softmax_precision", 1) != 1)
    return "no GPU kernel for Attention with a softmax_precision other than float32";
  const int64_t r = rank_of(inputs, 0);
  if ((r != 3 && r != 4) || rank_of(inputs, 1) != r || rank_of(inputs, 2) != r)
    return "no GPU kernel for Attention with inputs other than all 3-D or all 4-D";
  if (has(3) && rank_of(inputs, 3) > 4) return "no GPU kernel for Attention with an attn_mask above rank 4";
  if (r == 4) {
    const ir::Dim& dq = (*inputs[0].shape)[3];
    const ir::Dim& dv = (*inputs[2].shape)[3];
    if (dq.is_known() && dq.value > kMaxAttentionHeadSize)
      return "no GPU kernel for Attention with head size " + std::to_string(dq.value);
    if (dv.is_known() && dv.value > kMaxAttentionValueSize)
      return "no GPU kernel for Attention with value size " + std::to_string(dv.value);
  }
  return "";
}

std::unique_ptr<GpuKernel> make_attention(const ir::Node&) { return std::make_unique<Attention>(); }

}  // namespace hi::gpu::HI_GPU_NS
