// Softmax, LogSoftmax and Hardmax: which elements form one row, and the loop over the rows.
// Before opset 13 the input is coerced to 2-D at `axis` ([d0*..*d(axis-1), d(axis)*..*dn]) and
// each row of that matrix is one softmax; from opset 13 a row runs along the single dim `axis`.
#pragma once

#include <vector>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {

struct SoftmaxAxis {
  int64_t axis = -1;
  bool coerce_2d = false;  // opset < 13

  // Reads `axis` (default 1 before opset 13, -1 from 13).
  void parse(InitContext& ctx);
  // Output: the input's type and shape (float types only); checks the axis against the rank.
  Status infer(InferContext& ctx) const;
  // The input as `outer` blocks of `n`-element rows whose elements lie `inner` apart.
  Status layout(const Shape& shape, int64_t* outer, int64_t* n, int64_t* inner) const;
};

// Runs f(std::vector<double>& row) on every row in place, in double, and writes the result.
// Each row is read whole before any of it is written, so y may be x's storage.
template <typename F>
Status run_rows(RunContext& ctx, const SoftmaxAxis& a, F f) {
  const Tensor& x = ctx.in(0);
  int64_t outer = 0, n = 0, inner = 0;
  HI_RETURN_IF_ERROR(a.layout(x.shape(), &outer, &n, &inner));
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
    const T* px = x.data<T>();
    T* py = y.data<T>();
    std::vector<double> row(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] = static_cast<double>(px[base + j * inner]);
        f(row);
        for (int64_t j = 0; j < n; ++j) py[base + j * inner] = static_cast<T>(row[static_cast<size_t>(j)]);
      }
  });
  if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
  return Status::ok();
}

// An op whose rows are transformed by Fn{}(std::vector<double>&).
template <typename Fn>
class SoftmaxLikeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_.parse(ctx);
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return axis_.infer(ctx); }
  // Y may be X's storage: run_rows copies each row out before writing it back.
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }
  Status run(RunContext& ctx) const override { return run_rows(ctx, axis_, Fn{}); }

 private:
  SoftmaxAxis axis_;
};

}  // namespace hi::ops
