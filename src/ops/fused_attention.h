// FusedAttention (com.hipinfer, made by the attention fusion pass): multi-head scaled dot-product
// attention as BERT-style exporters write it, with the head split and merge transposes folded in.
// Q, K, V and Y are [B, S, H, D] (the Reshape before and after the heads' transposes); mask is
// optional, float32 and broadcastable to the scores [B, H, S_q, S_kv]; `scale` multiplies Q K^T.
// Per (batch, head): scores = Q K^T * scale + mask, softmax by row, Y = P V. The score matrix
// lives in a per-thread buffer, never in a tensor. The reference computes in plain loops; the CPU
// backend runs the products on its packed product or sgemm (backends/cpu/ops/fused_attention.cc).
#pragma once

#include "ops/op.h"

namespace hi::ops {

class FusedAttentionOp : public Op {
 public:
  Status init(InitContext& ctx) override {
    scale_ = ctx.get_float("scale", 1.f);
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override;
  Status run(RunContext& ctx) const override;

 protected:
  // One run's sizes, checked against each other: batch, query length, heads, head size, key
  // length and value head size; and the mask's strides over [B, H, S_q, S_kv] (0 where it
  // broadcasts).
  struct Dims {
    int64_t b = 0, sq = 0, h = 0, d = 0, skv = 0, dv = 0;
    int64_t mask_strides[4] = {0, 0, 0, 0};
  };
  Result<Dims> dims(const RunContext& ctx) const;

  float scale_ = 1.f;
};

}  // namespace hi::ops
