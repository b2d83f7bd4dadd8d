// Conv: N-d convolution with groups, strides, dilations and padding. The reference kernel is
// im2col + GEMM; the CPU backend runs float32 on its fast kernels (backends/cpu/ops/conv.cc).
// FusedConv (domain com.hipinfer, made by the fusion pass) is Conv followed by an optional
// residual sum (4th input Z) and an activation, in one kernel.
#pragma once

#include <atomic>
#include <vector>

#include "core/activation.h"
#include "ops/conv_util.h"
#include "ops/op.h"

namespace hi::ops {

class ConvOp : public Op {
 public:
  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override;
  // FusedConv's Z may be Y: every kernel reads a residual element before it writes Y's at the
  // same index (oneDNN's sum post-op, the own kernels' epilogues, the reference's final loop).
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 3; }
  Status run(RunContext& ctx) const override;

 protected:
  // One run's geometry, checked against the inputs: what the reference and a backend's kernel
  // both work from.
  struct Geometry {
    int64_t batch = 0, in_channels = 0, out_channels = 0;
    std::vector<int64_t> in, out, pads;  // spatial; pads: begins then ends
    WindowParams window;                 // kernel shape resolved from W
    Shape out_shape;                     // channels-first [N, M, out...]
    Shape y_shape;                       // Y as the node lays it out
  };
  Result<Geometry> geometry(const RunContext& ctx) const;
  // The reference kernel in float (double for float64), channels-first, permuting around it for
  // channels-last nodes; allocates Y.
  Status run_reference(RunContext& ctx, const Geometry& g) const;

  WindowParams window_;
  int64_t group_ = 1;
  Activation activation_;
  bool bf16_ = false;                 // FusedConv precision "bf16": products in bfloat16
  bool channels_last_ = false;        // FusedConv: Y and Z are [N, spatial..., C]
  bool input_channels_last_ = false;  // FusedConv: so is X
  // Set by infer(): when the session is built, and again on every run of a GPU partition (which
  // infers its nodes per run, from several threads at once).
  mutable std::atomic<bool> weights_constant_{false};

 private:
  template <typename C>
  void run_typed(const C* x, const C* w, const C* bias, C* y, int64_t n, int64_t c, int64_t m,
                 const std::vector<int64_t>& in, const std::vector<int64_t>& out, const WindowParams& wp,
                 const std::vector<int64_t>& pads) const;
};

}  // namespace hi::ops
