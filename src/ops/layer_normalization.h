// LayerNormalization (opset 17): each row over dims [axis, rank) is normalised,
// y = (x - mean) / sqrt(var + epsilon) * Scale + B, with Scale and B broadcast to the row's
// shape. Optional outputs Mean and InvStdDev have shape X[:axis] + [1]*(rank - axis) and the
// type stash_type names (1: float32, 16: bfloat16). Statistics are computed in double, which
// is at least stash_type's precision. The CPU backend runs float32 rows in float
// (backends/cpu/ops/layer_normalization.cc).
#pragma once

#include "ops/op.h"

namespace hi::ops {

class LayerNormalizationOp : public Op {
 public:
  Status init(InitContext& ctx) override;
  Status infer(InferContext& ctx) const override;
  // Y may be X's storage: both paths read a row whole (mean, variance) before writing it, each
  // element from X's at the same index.
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }
  Status run(RunContext& ctx) const override;

 protected:
  // X as `rows` rows of `n` elements, normalised over dims [axis, rank).
  struct Rows {
    size_t axis = 0;
    int64_t rows = 0, n = 0;
  };
  // Checks the run's inputs (the axis against X's rank, Scale's and B's shapes and types).
  Result<Rows> check_rows(const RunContext& ctx) const;
  // Whether the node asks for the Mean or InvStdDev output.
  bool stats_wanted(const RunContext& ctx) const;

  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  DType stash_ = DType::kFloat32;

 private:
  Result<size_t> checked_axis(int64_t rank, StatusCode code) const;
};

}  // namespace hi::ops
