// Shapes and per-row/per-column parameters for MatMulInteger and QLinearMatMul.
#include "ops/integer_matmul.h"

#include <algorithm>

#include "ops/quantize_util.h"

namespace hi::ops::qmm {

Result<MatMulDims> matmul_dims(const char* op, const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return error(StatusCode::kInvalidArgument, op, ": A ", shape_to_string(a), " and B ", shape_to_string(b),
                 " must have rank >= 1");
  MatMulDims d;
  d.a = a;
  d.b = b;
  if (a.size() == 1) d.a.insert(d.a.begin(), 1);
  if (b.size() == 1) d.b.push_back(1);
  d.m = d.a[d.a.size() - 2];
  d.k = d.a.back();
  d.n = d.b.back();
  if (d.b[d.b.size() - 2] != d.k)
    return error(StatusCode::kInvalidArgument, op, ": inner dims differ: A ", shape_to_string(a), " x B ",
                 shape_to_string(b));
  d.a_batch.assign(d.a.begin(), d.a.end() - 2);
  d.b_batch.assign(d.b.begin(), d.b.end() - 2);
  auto batch = broadcast_shapes(d.a_batch, d.b_batch);
  if (!batch.is_ok())
    return error(StatusCode::kInvalidArgument, op, ": batch dims of A ", shape_to_string(a), " and B ",
                 shape_to_string(b), " do not broadcast");
  d.batch = batch.value();
  d.out = d.batch;
  if (a.size() > 1) d.out.push_back(d.m);
  if (b.size() > 1) d.out.push_back(d.n);
  return d;
}

Result<ir::ValueType> matmul_type(const char* op, const ir::ValueType& a, const ir::ValueType& b, DType out) {
  if (!a.has_rank() || !b.has_rank()) return ir::ValueType::tensor_unknown_shape(out);
  auto da = *a.shape, db = *b.shape;
  if (da.empty() || db.empty())
    return error(StatusCode::kInvalidModel, op, ": A ", a.to_string(), " and B ", b.to_string(),
                 " must have rank >= 1");
  const bool va = da.size() == 1, vb = db.size() == 1;
  if (va) da.insert(da.begin(), ir::Dim::known(1));
  if (vb) db.push_back(ir::Dim::known(1));
  const ir::Dim k1 = da.back(), k2 = db[db.size() - 2];
  if (k1.is_known() && k2.is_known() && k1.value != k2.value)
    return error(StatusCode::kInvalidModel, op, ": inner dims differ: A ", a.to_string(), " x B ", b.to_string());
  const std::vector<ir::Dim> ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  HI_ASSIGN_OR_RETURN(auto dims, broadcast_dims(ba, bb));
  if (!va) dims.push_back(da[da.size() - 2]);
  if (!vb) dims.push_back(db.back());
  return ir::ValueType::tensor(out, std::move(dims));
}

Result<std::vector<double>> line_params(const char* op, const char* name, const Tensor& p, const MatMulDims& d,
                                        bool per_row) {
  const Shape& operand = per_row ? d.a : d.b;
  const Shape& batch = per_row ? d.a_batch : d.b_batch;
  const int64_t lines = per_row ? d.m : d.n;
  const int64_t nb = shape_numel(batch);
  std::vector<double> out(static_cast<size_t>(nb * lines));
  const std::vector<double> v = quant::real_values(p);  // the callers checked its type
  if (p.numel() == 1) {
    std::fill(out.begin(), out.end(), v[0]);
    return out;
  }
  if (p.rank() == 1 && p.dim(0) == lines) {
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t l = 0; l < lines; ++l) out[static_cast<size_t>(b * lines + l)] = v[static_cast<size_t>(l)];
    return out;
  }
  // N-D: [batch..., M, 1] for A, [batch..., 1, N] for B, batch dims equal to the operand's or 1.
  Shape line_shape = per_row ? Shape{lines, 1} : Shape{1, lines};
  bool fits =
      p.rank() == static_cast<int64_t>(operand.size()) && Shape(p.shape().end() - 2, p.shape().end()) == line_shape;
  for (size_t i = 0; fits && i < batch.size(); ++i)
    fits = p.dim(static_cast<int64_t>(i)) == batch[i] || p.dim(static_cast<int64_t>(i)) == 1;
  if (!fits)
    return error(StatusCode::kInvalidArgument, op, ": ", name, " ", p.type_string(), " must have one element, ", lines,
                 " elements, or shape [batch..., ", shape_to_string(line_shape).substr(1), " (per ",
                 per_row ? "row of A " : "column of B ", shape_to_string(operand), ")");
  const Shape p_batch(p.shape().begin(), p.shape().end() - 2);
  const BroadcastIndex bi(batch, p_batch);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t l = 0; l < lines; ++l)
      out[static_cast<size_t>(b * lines + l)] = v[static_cast<size_t>(bi.offset(b) * lines + l)];
  return out;
}

}  // namespace hi::ops::qmm
