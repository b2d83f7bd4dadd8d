// FusedMatMul (com.hipinfer, made by the fusion pass): Y = act(A x B + bias [+ Z]) with A
// [..., K], B a [K, N] matrix, bias [N] (any shape holding N values) and Z normally of the
// product's shape. The reference runs the product as one [rows, K] x [K, N] ProductOp::product_f32 (the
// CPU backend's sgemm) and applies the bias, residual and activation after it; the CPU backend
// runs its packed-weight kernels (backends/cpu/ops/fused_matmul.cc), which apply them while the product's
// rows are still in cache. The pass
// also fuses a residual whose shape it cannot prove equal (symbolic dims lost in a Reshape): a Z
// that turns out to broadcast is added with numpy broadcasting after the product, as the Add
// it replaced would have.

#pragma once

#include "core/activation.h"
#include "ops/gemm_ref.h"

namespace hi::ops {

class FusedMatMulOp : public ProductOp {
 public:
  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override;
  // Z may be Y: every kernel reads a residual element before it writes Y's at the same index
  // (oneDNN's sum post-op, the packed products, the reference's accumulation onto Z).
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 3; }
  Status run(RunContext& ctx) const override;

 protected:
  // A as `rows` rows of K, B [K, N]; Y's shape before any broadcast with Z.
  struct Dims {
    int64_t rows = 0, k = 0, n = 0;
    Shape out_shape;
  };
  // Checks A, B and the bias against each other.
  Result<Dims> dims(const RunContext& ctx) const;

  Activation activation_;
  bool bf16_ = false;  // precision "bf16": products in bfloat16

 private:
  // Y = act(A x B + bias + Z) where Z broadcasts against the product (or the product against Z).
  Status run_broadcast_residual(RunContext& ctx, int64_t rows, int64_t k, int64_t n, const Shape& product_shape) const;
};

}  // namespace hi::ops
