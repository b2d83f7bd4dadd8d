// Softmax: exp(x - max) / sum(exp(x - max)) along the axis (see softmax_util.h for the axis).
// The reference computes each row in double; the CPU backend runs float32 rows its own way
// (backends/cpu/ops/softmax.cc).
#pragma once

#include "ops/softmax_util.h"

namespace hi::ops {

class SoftmaxOp : public Op {
 public:
  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override { return axis_.infer(ctx); }
  // Y may be X's storage: run_rows copies each row out before writing it back (and a backend's
  // row kernel must read a row before writing it).
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }
  Status run(RunContext& ctx) const override;

 protected:
  SoftmaxAxis axis_;
};

}  // namespace hi::ops
