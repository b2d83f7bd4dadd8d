// Gemm: Y = alpha * op(A) * op(B) + beta * C, with C broadcast to [M, N]. float32 products go
// through ProductOp::product_f32, which the CPU backend runs on its sgemm.
#pragma once

#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/gemm_ref.h"

namespace hi::ops {

class GemmOp : public ProductOp {
 public:
  Status init(InitContext& ctx) override {
    alpha_ = ctx.get_float("alpha", 1.f);
    beta_ = ctx.get_float("beta", 1.f);
    trans_a_ = ctx.get_int("transA", 0) != 0;
    trans_b_ = ctx.get_int("transB", 0) != 0;
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    const ir::ValueType& a = ctx.input_type(0);
    const ir::ValueType& b = ctx.input_type(1);
    if (!in_set(kFloatTypes, a.dtype)) return unsupported_dtype(ctx.node(), a.dtype);
    if (a.dtype != b.dtype)
      return error(StatusCode::kInvalidModel, "A is ", dtype_name(a.dtype), " but B is ", dtype_name(b.dtype));
    if (!a.has_rank() || !b.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor(a.dtype, {ir::Dim{}, ir::Dim{}}));
      return Status::ok();
    }
    if (a.rank() != 2 || b.rank() != 2)
      return error(StatusCode::kInvalidModel, "A ", a.to_string(), " and B ", b.to_string(), " must be 2-D");
    const ir::Dim m = (*a.shape)[trans_a_ ? 1 : 0], ka = (*a.shape)[trans_a_ ? 0 : 1];
    const ir::Dim kb = (*b.shape)[trans_b_ ? 1 : 0], n = (*b.shape)[trans_b_ ? 0 : 1];
    if (ka.is_known() && kb.is_known() && ka.value != kb.value)
      return error(StatusCode::kInvalidModel, "inner dims differ: A ", a.to_string(), (trans_a_ ? " (transposed)" : ""),
                   ", B ", b.to_string(), (trans_b_ ? " (transposed)" : ""));
    if (ctx.has_input(2) && ctx.input_type(2).dtype != DType::kUndefined && ctx.input_type(2).dtype != a.dtype)
      return error(StatusCode::kInvalidModel, "A is ", dtype_name(a.dtype), " but C is ",
                   ctx.input_type(2).to_string());
    if (ctx.has_input(2) && ctx.input_type(2).has_rank()) {
      const auto r = broadcast_dims(*ctx.input_type(2).shape, {m, n});
      if (!r.is_ok() || r.value().size() != 2)
        return error(StatusCode::kInvalidModel, "C ", ctx.input_type(2).to_string(), " does not broadcast to [",
                     m.to_string(), ", ", n.to_string(), "]");
    }
    ctx.set_output_type(0, ir::ValueType::tensor(a.dtype, {m, n}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    const Tensor* c = ctx.input(2);
    if (a.rank() != 2 || b.rank() != 2)
      return error(StatusCode::kInvalidArgument, "A ", a.type_string(), " and B ", b.type_string(), " must be 2-D");
    const int64_t m = a.dim(trans_a_ ? 1 : 0), k = a.dim(trans_a_ ? 0 : 1);
    const int64_t kb = b.dim(trans_b_ ? 1 : 0), n = b.dim(trans_b_ ? 0 : 1);
    if (k != kb)
      return error(StatusCode::kInvalidArgument, "inner dims differ: A ", a.type_string(), ", B ", b.type_string());
    if (c && c->dtype() != a.dtype())
      return error(StatusCode::kInvalidArgument, "A is ", dtype_name(a.dtype()), " but C is ", c->type_string());
    if (c) {
      auto r = broadcast_shapes(c->shape(), {m, n});
      if (!r.is_ok() || r.value() != Shape{m, n})
        return error(StatusCode::kInvalidArgument, "C ", c->type_string(), " does not broadcast to [", m, ", ", n, "]");
    }
    Tensor& y = ctx.output(0, a.dtype(), {m, n});
    if (a.dtype() == DType::kFloat32) {
      float* py = y.data<float>();
      const bool with_c = c && beta_ != 0.f;
      if (with_c) {
        const BroadcastIndex ic({m, n}, c->shape());
        const float* pc = c->data<float>();
        for (int64_t i = 0; i < m * n; ++i) py[i] = pc[ic.offset(i)];
      }
      product_f32(trans_a_, trans_b_, m, n, k, alpha_, a.data<float>(), a.dim(1), b.data<float>(), b.dim(1),
                  with_c ? beta_ : 0.f, py, n);
      return Status::ok();
    }
    bool ok = dispatch<kFloatTypes>(a.dtype(), [&]<typename T>() {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      std::vector<C> fa(static_cast<size_t>(a.numel())), fb(static_cast<size_t>(b.numel())),
          fy(static_cast<size_t>(m * n), C(0));
      for (size_t i = 0; i < fa.size(); ++i) fa[i] = static_cast<C>(a.data<T>()[i]);
      for (size_t i = 0; i < fb.size(); ++i) fb[i] = static_cast<C>(b.data<T>()[i]);
      if (c && beta_ != 0.f) {
        const BroadcastIndex ic({m, n}, c->shape());
        for (int64_t i = 0; i < m * n; ++i) fy[static_cast<size_t>(i)] = static_cast<C>(c->data<T>()[ic.offset(i)]);
      }
      gemm_ref<C>(trans_a_, trans_b_, m, n, k, static_cast<C>(alpha_), fa.data(), a.dim(1), fb.data(), b.dim(1),
                  c ? static_cast<C>(beta_) : C(0), fy.data(), n);
      for (size_t i = 0; i < fy.size(); ++i) y.data<T>()[i] = static_cast<T>(fy[i]);
    });
    if (!ok) return unsupported_dtype(ctx.node(), a.dtype());
    return Status::ok();
  }

 private:
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
};

}  // namespace hi::ops
