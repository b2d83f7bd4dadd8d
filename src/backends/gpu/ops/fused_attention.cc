// FusedAttention (com.hipinfer, made by the attention fusion pass) on the online-softmax
// attention kernel (kernels/attention.cu): float32 Q, K, V [B, S, H, D], an optional float32 mask
// broadcast to the scores [B, H, Sq, Skv].
#include <algorithm>

#include "backends/gpu/ops/attention_mask.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class FusedAttention final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    scale_ = ctx.get_float("scale", 1.f);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const Shape& q = ctx.input(0).shape;
    const Shape& k = ctx.input(1).shape;
    const Shape& v = ctx.input(2).shape;
    HI_RETURN_IF(q.size() != 4 || k.size() != 4 || v.size() != 4, kInvalidArgument, "Q ", shape_to_string(q), ", K ",
                 shape_to_string(k), " and V ", shape_to_string(v), " must be [batch, seq, heads, head_size]");
    AttentionDesc d;
    d.batch = q[0];
    d.q_len = q[1];
    d.heads = q[2];
    d.head_size = q[3];
    d.kv_len = k[1];
    d.value_size = v[3];
    d.scale = scale_;
    HI_RETURN_IF(k[0] != d.batch || v[0] != d.batch || k[2] != d.heads || v[2] != d.heads || k[3] != d.head_size ||
                     v[1] != d.kv_len,
                 kInvalidArgument, "Q ", shape_to_string(q), ", K ", shape_to_string(k), " and V ", shape_to_string(v),
                 " do not agree on batch, heads, head size and key length");
    const void* mask = nullptr;
    if (ctx.has_input(3)) {
      HI_RETURN_IF_ERROR(set_mask_strides(ctx.input(3).shape, {d.batch, d.heads, d.q_len, d.kv_len}, &d));
      mask = ctx.input(3).ptr;
    }
    return attention(d, static_cast<const float*>(ctx.input(0).ptr), static_cast<const float*>(ctx.input(1).ptr),
                     static_cast<const float*>(ctx.input(2).ptr), mask, static_cast<float*>(ctx.output(0).ptr),
                     ctx.stream());
  }

 private:
  float scale_ = 1.f;
};

}  // namespace

std::string fused_attention_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  for (size_t i = 0; i < std::min<size_t>(node.inputs.size(), 4); ++i) {
    if (node.inputs[i].empty()) continue;
    if (dtype_of(inputs, i) != DType::kFloat32)
      return "no GPU kernel for FusedAttention on " + std::string(dtype_name(dtype_of(inputs, i))) + " (float32)";
  }
  for (size_t i = 0; i < 3; ++i)
    if (rank_of(inputs, i) != 4) return "no GPU kernel for FusedAttention with inputs other than rank 4";
  if (node.inputs.size() > 3 && !node.inputs[3].empty() && rank_of(inputs, 3) > 4)
    return "no GPU kernel for FusedAttention with a mask above rank 4";
  // The head sizes decide whether the kernel takes the node; unknown ones are checked at launch.
  const ir::Dim& dq = (*inputs[0].shape)[3];
  const ir::Dim& dv = (*inputs[2].shape)[3];
  if (dq.is_known() && dq.value > kMaxAttentionHeadSize)
    return "no GPU kernel for FusedAttention with head size " + std::to_string(dq.value) + " (at most " +
           std::to_string(kMaxAttentionHeadSize) + ")";
  if (dv.is_known() && dv.value > kMaxAttentionValueSize)
    return "no GPU kernel for FusedAttention with value size " + std::to_string(dv.value) + " (at most " +
           std::to_string(kMaxAttentionValueSize) + ")";
  return "";
}

std::unique_ptr<GpuKernel> make_fused_attention(const ir::Node&) { return std::make_unique<FusedAttention>(); }

}  // namespace hi::gpu::HI_GPU_NS
