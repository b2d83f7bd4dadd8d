// InvertedResidual (com.hipinfer, made by the fuse_inverted_residual pass): a MobileNet block,
// FusedConv 1x1 (expand) -> FusedConv depthwise -> FusedConv 1x1 (project, + residual Z), all
// float32 and channels-last, which the CPU backend runs as one kernel that keeps the
// expanded tensor in the cache (backends/cpu/ops/inverted_residual.cc); the reference here computes the three
// stages one after the other, in float32 (also with `precision` bf16). Inputs: X [N, H, W, C], expand W and B (both
// empty when the block has no expansion), depthwise W [M, 1, kh, kw] and B, project W [O, M, 1, 1] and B, optional Z
// [N, OH, OW, O]. The window attributes are the depthwise convolution's; each stage has its
// activation as `<stage>_activation` and `<stage>_activation_params`; `precision` "bf16" lets a backend
// run the pointwise products in bfloat16.

#pragma once

#include "core/activation.h"
#include "ops/conv_util.h"
#include "ops/op.h"

namespace hi::ops {

class InvertedResidualOp : public Op {
 public:
  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override;
  Status run(RunContext& ctx) const override;

 protected:
  // One run's block, its weights checked against X and the window.
  struct Plan {
    int64_t batch = 0, height = 0, width = 0, in_channels = 0, hidden = 0, out_channels = 0;
    bool expand = true;  // false: the depthwise reads X
    int64_t pad_top = 0, pad_left = 0, out_height = 0, out_width = 0;
    Shape y_shape;  // [N, OH, OW, O]
  };
  Result<Plan> plan(const RunContext& ctx) const;

  WindowParams window_;  // the depthwise convolution's, rank 2
  Activation acts_[3];   // expand, depthwise, project
  bool bf16_ = false;    // precision "bf16": a backend may run the pointwise products in bfloat16
};

}  // namespace hi::ops
