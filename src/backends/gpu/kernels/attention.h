// Multi-head scaled dot-product attention (kernels/attention.cu), for FusedAttention and ONNX
// Attention: Q [B, Sq, H, D], K [B, Skv, Hkv, D], V [B, Skv, Hkv, Dv], Y [B, Sq, H, Dv] (or each
// heads-first); per (batch, head, query) scores = q K^T * scale, softcapped, + mask (and causal
// and window limits), softmax over the keys, y = P V. float32.
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
  int64_t kv_heads = 0;      // grouped-query attention: query head h reads kv head h / (heads / kv_heads); 0: heads
  bool heads_first = false;  // Q, K, V and Y as [B, H, S, D] (ONNX Attention's 4-D form) instead of [B, S, H, D]
  float scale = 1.f;
  float softcap = 0.f;  // > 0: scores become softcap * tanh(score / softcap) before the mask
  // The mask's element strides over [B, H, Sq, mask_len] (0 where it broadcasts); unused without
  // a mask. Keys from mask_len on are masked (ONNX Attention pads a short mask as masked); -1: kv_len.
  int64_t mask_strides[4] = {0, 0, 0, 0};
  int64_t mask_len = -1;
  bool mask_is_bool = false;                    // a bool mask: false masks the key; else it is added to the score
  bool causal = false;                          // key j > query i is masked
  int64_t left_window = -1, right_window = -1;  // >= 0: keys more than that many before / after query i are masked
  bool masked_rows_zero = false;  // a row with no key left gives zeros (ONNX Attention), else NaN (FusedAttention)
};

// One block per (batch, head, query row) walks the keys in chunks with a running maximum and sum
// (the online softmax), so no score matrix is stored and any key length fits. Errors name the
// sizes the kernel does not take. mask is float32 or bool (desc.mask_is_bool), or null.
Status attention(const AttentionDesc& desc, const float* q, const float* k, const float* v, const void* mask, float* y,
                 Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
