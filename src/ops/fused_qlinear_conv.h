// FusedQLinearConv (com.hipinfer): QLinearConv channels-last, x and y [N, H, W, C], with an
// optional Relu (attribute activation), as the QDQ pass (fuse_qdq_conv) makes it from a QDQ
// model's DequantizeLinear -> Conv -> QuantizeLinear. Inputs are QLinearConv's. The reference
// runs QLinearConv's arithmetic between two permutations; the CPU backend runs the int8 implicit
// product (backends/cpu/ops/fused_qlinear_conv.cc) where the CPU has AVX512_VNNI, the weights, scales and
// zero points are constants, w's zero point is 0 and the convolution is 2-D with one group. Both
// give the same codes.
#pragma once

#include <atomic>

#include "ops/conv_util.h"
#include "ops/op.h"

namespace hi::ops {

class FusedQLinearConvOp : public Op {
 public:
  static constexpr const char* kOp = "FusedQLinearConv";

  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override;
  Status run(RunContext& ctx) const override;

 protected:
  // x's channels-last [N, H, W, C] as QLinearConv's [N, C, H, W].
  static Shape channels_first_shape(const Shape& s) { return {s[0], s[3], s[1], s[2]}; }

  WindowParams window_;
  int64_t group_ = 1;
  bool relu_ = false;
  // Every input but x is a constant (set when the session is built).
  mutable std::atomic<bool> constants_{false};
};

}  // namespace hi::ops
