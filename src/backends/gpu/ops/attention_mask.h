// The attention kernel's mask strides, shared by FusedAttention and ONNX Attention.
#pragma once

#include "backends/gpu/gpu_op.h"
#include "backends/gpu/kernels/attention.h"
#include "ops/shape_util.h"

namespace hi::gpu::HI_GPU_NS {

// Sets d.mask_strides for a mask of shape `mask` that broadcasts to the scores [B, H, Sq, L]
// (`scores`); kInvalidArgument naming both shapes when it does not.
inline Status set_mask_strides(const Shape& mask, const Shape& scores, AttentionDesc* d) {
  auto b = ops::broadcast_shapes(mask, scores);
  HI_RETURN_IF(!b.is_ok() || b.value() != scores || mask.size() > 4, kInvalidArgument, "mask ", shape_to_string(mask),
               " does not broadcast to the scores ", shape_to_string(scores));
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(mask.size()) - 1, dim = 3; i >= 0; --i, --dim) {
    d->mask_strides[dim] = mask[static_cast<size_t>(i)] == 1 ? 0 : stride;
    stride *= mask[static_cast<size_t>(i)];
  }
  return Status::ok();
}

}  // namespace hi::gpu::HI_GPU_NS
