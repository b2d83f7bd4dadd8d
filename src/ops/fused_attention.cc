#include "ops/fused_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/threading.h"
#include "ops/elementwise.h"

namespace hi::ops {

Status FusedAttentionOp::infer(InferContext& ctx) const {
  for (size_t i = 0; i < 3; ++i) {
    const ir::ValueType& t = ctx.input_type(i);
    if (t.dtype != DType::kFloat32) return unsupported_dtype(ctx.node(), t.dtype);
    if (t.has_rank() && t.rank() != 4)
      return error(StatusCode::kInvalidModel, "input ", i, " ", t.to_string(),
                   " must be [batch, seq, heads, head_size]");
  }
  const ir::ValueType& q = ctx.input_type(0);
  if (!q.has_rank()) {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kFloat32));
    return Status::ok();
  }
  std::vector<ir::Dim> out = *q.shape;
  if (ctx.input_type(2).has_rank()) out[3] = (*ctx.input_type(2).shape)[3];
  ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, out));
  return Status::ok();
}

Result<FusedAttentionOp::Dims> FusedAttentionOp::dims(const RunContext& ctx) const {
  const Tensor& q = ctx.in(0);
  const Tensor& k = ctx.in(1);
  const Tensor& v = ctx.in(2);
  const Tensor* mask = ctx.input(3);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    return error(StatusCode::kInvalidArgument, "Q ", q.type_string(), ", K ", k.type_string(), " and V ",
                 v.type_string(), " must be [batch, seq, heads, head_size]");
  const int64_t b = q.dim(0), sq = q.dim(1), h = q.dim(2), d = q.dim(3), skv = k.dim(1), dv = v.dim(3);
  if (k.dim(0) != b || v.dim(0) != b || k.dim(2) != h || v.dim(2) != h || k.dim(3) != d || v.dim(1) != skv)
    return error(StatusCode::kInvalidArgument, "Q ", q.type_string(), ", K ", k.type_string(), " and V ",
                 v.type_string(), " do not agree on batch, heads, head size and key length");
  Dims g{b, sq, h, d, skv, dv, {0, 0, 0, 0}};
  if (mask) {
    const Shape scores = {b, h, sq, skv};
    auto r = broadcast_shapes(mask->shape(), scores);
    if (!r.is_ok() || r.value() != scores || mask->dtype() != DType::kFloat32)
      return error(StatusCode::kInvalidArgument, "mask ", mask->type_string(),
                   " does not broadcast to the scores float32", shape_to_string(scores));
    const Shape& m = mask->shape();
    int64_t stride = 1;
    for (int64_t i = static_cast<int64_t>(m.size()) - 1, dim = 3; i >= 0; --i, --dim) {
      g.mask_strides[dim] = m[static_cast<size_t>(i)] == 1 ? 0 : stride;
      stride *= m[static_cast<size_t>(i)];
    }
  }
  return g;
}

Status FusedAttentionOp::run(RunContext& ctx) const {
  HI_ASSIGN_OR_RETURN(const Dims g, dims(ctx));
  Tensor& y = ctx.output(0, DType::kFloat32, {g.b, g.sq, g.h, g.dv});
  const float* pq = ctx.in(0).data<float>();
  const float* pk = ctx.in(1).data<float>();
  const float* pv = ctx.in(2).data<float>();
  const Tensor* mask = ctx.input(3);
  const float* pm = mask ? mask->data<float>() : nullptr;
  const int64_t* ms = g.mask_strides;
  float* py = y.data<float>();
  parallel_for(g.b * g.h, 1, [&](int64_t t0, int64_t t1) {
    std::vector<double> row(static_cast<size_t>(g.skv));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / g.h, hi = t % g.h;
      for (int64_t i = 0; i < g.sq; ++i) {
        // Row i of the scores: Q_i K^T * scale + mask, softmax in double.
        const float* qi = pq + ((bi * g.sq + i) * g.h + hi) * g.d;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < g.skv; ++j) {
          const float* kj = pk + ((bi * g.skv + j) * g.h + hi) * g.d;
          double s = 0;
          for (int64_t e = 0; e < g.d; ++e) s += static_cast<double>(qi[e]) * kj[e];
          s *= scale_;
          if (pm) s += pm[bi * ms[0] + hi * ms[1] + i * ms[2] + j * ms[3]];
          row[static_cast<size_t>(j)] = s;
          mx = std::max(mx, s);
        }
        double sum = 0;
        for (double& s : row) sum += (s = std::exp(s - mx));
        float* yi = py + ((bi * g.sq + i) * g.h + hi) * g.dv;
        for (int64_t e = 0; e < g.dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < g.skv; ++j)
            acc += row[static_cast<size_t>(j)] * pv[((bi * g.skv + j) * g.h + hi) * g.dv + e];
          yi[e] = g.skv == 0 ? 0.f : static_cast<float>(acc / sum);
        }
      }
    }
  });
  return Status::ok();
}

HI_REGISTER_OP(FusedAttention, FusedAttentionOp)

}  // namespace hi::ops
