// Multi-head scaled dot-product attention (kernels/attention.cu), as FusedAttention computes it:
// Q [B, Sq, H, D], K [B, Skv, H, D], V [B, Skv, H, Dv], Y [B, Sq, H, Dv]; per (batch, head, query)
// scores = q K^T * scale + mask, softmax over the keys, y = P V. float32.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

// Largest Dv the kernel keeps in registers (four accumulators per thread of a 256-thread block).
constexpr int64_t kMaxAttentionValueSize = 1024;
// Largest D: one query row sits in shared memory.
constexpr int64_t kMaxAttentionHeadSize = 4096;

struct AttentionDesc {
  int64_t batch = 0, heads = 0, q_len = 0, kv_len = 0, head_size = 0, value_size = 0;
  float scale = 1.f;
  // The mask's element strides over [B, H, Sq, Skv] (0 where it broadcasts); unused without a mask.
  int64_t mask_strides[4] = {0, 0, 0, 0};
};

// One block per (batch, head, query row) walks the keys in chunks with a running maximum and sum
// (the online softmax), so no score matrix is stored and any key length fits. Errors name the
// sizes the kernel does not take.
Status attention(const AttentionDesc& desc, const float* q, const float* k, const float* v, const float* mask, float* y,
                 Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
