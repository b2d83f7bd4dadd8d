#include "ops/fused_matmul.h"

#include <algorithm>

#include "core/threading.h"
#include "ops/elementwise.h"
#include "ops/internal.h"
#include "ops/shape_util.h"

namespace hi::ops {

Status FusedMatMulOp::init(InitContext& ctx) {
  parse_fused_epilogue(ctx, &activation_, &bf16_);
  return ctx.status();
}

Status FusedMatMulOp::infer(InferContext& ctx) const {
  const ir::ValueType& a = ctx.input_type(0);
  const ir::ValueType& b = ctx.input_type(1);
  if (a.dtype != DType::kFloat32 || b.dtype != DType::kFloat32) return unsupported_dtype(ctx.node(), a.dtype);
  if (!ctx.has_input(2)) return error(StatusCode::kInvalidModel, "FusedMatMul needs a bias input");
  if (!b.has_rank() || b.rank() != 2)
    return error(StatusCode::kInvalidModel, "B must be a matrix, got ", b.to_string());
  if (!a.has_rank()) {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(a.dtype));
    return Status::ok();
  }
  if (a.rank() < 2) return error(StatusCode::kInvalidModel, "A must have rank >= 2, got ", a.to_string());
  const auto& ad = *a.shape;
  const auto& bd = *b.shape;
  if (ad.back().is_known() && bd[0].is_known() && ad.back().value != bd[0].value)
    return error(StatusCode::kInvalidModel, "inner dims differ: ", a.to_string(), " x ", b.to_string());
  std::vector<ir::Dim> out(ad.begin(), ad.end() - 1);
  out.push_back(bd[1]);
  // A residual may broadcast the product (numpy rules, dim by dim; an unknown product dim takes
  // Z's known one other than 1).
  if (ctx.has_input(3) && ctx.input_type(3).has_rank() && ctx.input_type(3).rank() == static_cast<int64_t>(out.size()))
    for (size_t i = 0; i < out.size(); ++i) {
      const ir::Dim& zd = (*ctx.input_type(3).shape)[i];
      if (!zd.is_known()) continue;
      if (!out[i].is_known()) {
        if (zd.value != 1) out[i] = zd;
      } else if (out[i].value == 1) {
        out[i] = zd;
      } else if (zd.value != 1 && zd.value != out[i].value) {
        return error(StatusCode::kInvalidModel, "residual Z ", ctx.input_type(3).to_string(),
                     " does not broadcast with the product's dim ", i, " of ", out[i].value);
      }
    }
  ctx.set_output_type(0, ir::ValueType::tensor(a.dtype, out));
  return Status::ok();
}

Result<FusedMatMulOp::Dims> FusedMatMulOp::dims(const RunContext& ctx) const {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  const Tensor& bias = ctx.in(2);
  if (a.rank() < 2 || b.rank() != 2 || a.dim(a.rank() - 1) != b.dim(0))
    return error(StatusCode::kInvalidArgument, "A ", a.type_string(), " does not fit B ", b.type_string());
  const int64_t k = b.dim(0), n = b.dim(1), rows = k == 0 ? 0 : a.numel() / k;
  if (bias.numel() != n)
    return error(StatusCode::kInvalidArgument, "bias ", bias.type_string(), " must hold ", n, " values");
  Shape out_shape = a.shape();
  out_shape.back() = n;
  return Dims{rows, k, n, out_shape};
}

Status FusedMatMulOp::run(RunContext& ctx) const {
  HI_ASSIGN_OR_RETURN(const Dims d, dims(ctx));
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  const Tensor& bias = ctx.in(2);
  const Tensor* z = ctx.input(3);
  const int64_t rows = d.rows, k = d.k, n = d.n;
  const Shape& out_shape = d.out_shape;
  if (z && z->shape() != out_shape) return run_broadcast_residual(ctx, rows, k, n, out_shape);
  Tensor& y = ctx.output(0, DType::kFloat32, out_shape);
  float* py = y.data<float>();
  // The product accumulates onto Z, copied into Y first unless Y is Z already (in place).
  const float* pz = z ? z->data<float>() : nullptr;
  if (pz && pz != py) std::copy(pz, pz + y.numel(), py);
  if (k == 0 && !pz) std::fill(py, py + y.numel(), 0.f);
  if (k > 0) product_f32(false, false, rows, n, k, 1.f, a.data<float>(), k, b.data<float>(), n, pz ? 1.f : 0.f, py, n);
  const float* pb = bias.data<float>();
  const Activation act = activation_;
  parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* row = py + r * n;
      for (int64_t j = 0; j < n; ++j) row[j] = act.apply(row[j] + pb[j]);
    }
  });
  return Status::ok();
}

Status FusedMatMulOp::run_broadcast_residual(RunContext& ctx, int64_t rows, int64_t k, int64_t n,
                                             const Shape& product_shape) const {
  const Tensor& z = *ctx.input(3);
  auto shape = broadcast_shapes(product_shape, z.shape());
  if (!shape.is_ok())
    return error(StatusCode::kInvalidArgument, "residual Z ", z.type_string(), " does not broadcast with the product ",
                 shape_to_string(product_shape), ": ", shape.status().message());
  Tensor product = Tensor::empty(DType::kFloat32, product_shape);
  float* pp = product.data<float>();
  if (k == 0) std::fill(pp, pp + product.numel(), 0.f);
  else product_f32(false, false, rows, n, k, 1.f, ctx.in(0).data<float>(), k, ctx.in(1).data<float>(), n, 0.f, pp, n);
  const float* pb = ctx.in(2).data<float>();
  for (int64_t i = 0; i < product.numel(); ++i) pp[i] += pb[i % std::max<int64_t>(n, 1)];
  Tensor& y = ctx.output(0, DType::kFloat32, shape.value());
  float* py = y.data<float>();
  const float* pz = z.data<float>();
  const Activation act = activation_;
  for_each_broadcast(y.shape(), product_shape, z.shape(),
                     [&](int64_t o, int64_t ia, int64_t ib) { py[o] = act.apply(pp[ia] + pz[ib]); });
  return Status::ok();
}

HI_REGISTER_OP(FusedMatMul, FusedMatMulOp)

}  // namespace hi::ops
