// The matrix product behind MatMulInteger and QLinearMatMul: numpy matmul shapes, zero points
// and scales given per tensor, per row of A or per column of B, and a batched product that
// accumulates integers in 32 bits (wrapping, as the spec allows) or reals in double.
#pragma once

#include <cstdint>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "ir/graph.h"
#include "ops/shape_util.h"

namespace hi::ops::qmm {

struct MatMulDims {
  Shape a, b;              // the operands with 1-D ones promoted to [1, K] and [K, 1]
  Shape a_batch, b_batch;  // their leading dims
  Shape batch;             // the broadcast of the two
  Shape out;               // the result's shape (promoted dims dropped again)
  int64_t m = 0, k = 0, n = 0;
};

// Shapes of A x B; the error names the op and both shapes.
Result<MatMulDims> matmul_dims(const char* op, const Shape& a, const Shape& b);
// The same for static inference (symbolic dims allowed); output type `out`.
Result<ir::ValueType> matmul_type(const char* op, const ir::ValueType& a, const ir::ValueType& b, DType out);

// A zero point or scale of A (per_row) or B (per column), one value per (operand batch, line):
// one element (per tensor), a 1-D vector of M (A) or N (B) values, or a tensor of the operand's
// rank shaped [batch..., M, 1] (A) or [batch..., 1, N] (B) whose batch dims broadcast to the
// operand's. Indexed [batch_index * lines + line].
Result<std::vector<double>> line_params(const char* op, const char* name, const Tensor& p, const MatMulDims& d,
                                        bool per_row);

// Operand element `i` (row-major over the promoted shape) -> its index into line_params.
inline int64_t line_of(int64_t i, const MatMulDims& d, bool per_row) {
  if (per_row) return (i / (d.m * d.k)) * d.m + (i / d.k) % d.m;
  return (i / (d.k * d.n)) * d.n + i % d.n;
}

// The operand's values (A: per_row) minus their zero points (nullptr: none), as V.
template <typename V>
std::vector<V> shifted_values(const std::vector<double>& values, const std::vector<double>* zp, const MatMulDims& d,
                              bool per_row) {
  std::vector<V> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<V>(values[i] -
                            (zp ? (*zp)[static_cast<size_t>(line_of(static_cast<int64_t>(i), d, per_row))] : 0.0));
  return out;
}

// y[batch, m, n] = sum_k a[a_batch, m, k] * b[b_batch, k, n]. V = int32_t accumulates in
// int64 and wraps to 32 bits once; V = double accumulates in double.
template <typename V>
std::vector<V> batched_matmul(const MatMulDims& d, const std::vector<V>& a, const std::vector<V>& b) {
  using Acc = std::conditional_t<std::is_integral_v<V>, int64_t, double>;
  const int64_t nb = shape_numel(d.batch);
  const BroadcastIndex ia(d.batch, d.a_batch), ib(d.batch, d.b_batch);
  std::vector<V> y(static_cast<size_t>(nb * d.m * d.n));
  for (int64_t bi = 0; bi < nb; ++bi) {
    const V* am = a.data() + ia.offset(bi) * d.m * d.k;
    const V* bm = b.data() + ib.offset(bi) * d.k * d.n;
    V* ym = y.data() + bi * d.m * d.n;
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        Acc acc = 0;
        for (int64_t p = 0; p < d.k; ++p) acc += static_cast<Acc>(am[i * d.k + p]) * static_cast<Acc>(bm[p * d.n + j]);
        ym[i * d.n + j] = static_cast<V>(acc);  // int64 -> int32 wraps (C++20)
      }
  }
  return y;
}

}  // namespace hi::ops::qmm
