// MatMul: numpy matmul (1-D operands promoted, batch dims broadcast). float32 products go through
// ProductOp::product_f32, which the CPU backend runs on its sgemm.
#pragma once

#include "core/run_control.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/gemm_ref.h"

namespace hi::ops {

class MatMulOp : public ProductOp {
 public:
  static constexpr uint64_t kTypes =
      kFloatTypes | bit(DType::kInt32) | bit(DType::kInt64) | bit(DType::kUInt32) | bit(DType::kUInt64);

  Status infer(InferContext& ctx) const override {
    const ir::ValueType& a = ctx.input_type(0);
    const ir::ValueType& b = ctx.input_type(1);
    // An undefined dtype (e.g. an untyped Scan body input) is not known yet, not wrong: the
    // output takes the other input's dtype, and the kernel checks the real one at run time.
    const bool a_known = a.dtype != DType::kUndefined, b_known = b.dtype != DType::kUndefined;
    if (a_known && !in_set(kTypes, a.dtype)) return unsupported_dtype(ctx.node(), a.dtype);
    if (b_known && !in_set(kTypes, b.dtype)) return unsupported_dtype(ctx.node(), b.dtype);
    if (a_known && b_known && a.dtype != b.dtype)
      return error(StatusCode::kInvalidModel, "inputs have different types: ", dtype_name(a.dtype), " and ",
                   dtype_name(b.dtype));
    const DType dtype = a_known ? a.dtype : b.dtype;
    if (!a.has_rank() || !b.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(dtype));
      return Status::ok();
    }
    auto da = *a.shape, db = *b.shape;
    if (da.empty() || db.empty())
      return error(StatusCode::kInvalidModel, "MatMul inputs must have rank >= 1, got ", a.to_string(), " and ",
                   b.to_string());
    const bool va = da.size() == 1, vb = db.size() == 1;
    if (va) da.insert(da.begin(), ir::Dim::known(1));
    if (vb) db.push_back(ir::Dim::known(1));
    const ir::Dim k1 = da.back(), k2 = db[db.size() - 2];
    if (k1.is_known() && k2.is_known() && k1.value != k2.value)
      return error(StatusCode::kInvalidModel, "inner dims differ: ", a.to_string(), " x ", b.to_string());
    std::vector<ir::Dim> ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
    HI_ASSIGN_OR_RETURN(auto batch, broadcast_dims(ba, bb));
    if (!va) batch.push_back(da[da.size() - 2]);
    if (!vb) batch.push_back(db.back());
    ctx.set_output_type(0, ir::ValueType::tensor(dtype, batch));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    // Inference may have seen an undefined dtype, so the kernel checks the pair itself.
    if (a.dtype() != b.dtype())
      return error(StatusCode::kInvalidArgument, "MatMul inputs have different types: ", dtype_name(a.dtype()), " and ",
                   dtype_name(b.dtype()));
    Shape sa = a.shape(), sb = b.shape();
    if (sa.empty() || sb.empty()) return error(StatusCode::kInvalidArgument, "MatMul inputs must have rank >= 1");
    const bool va = sa.size() == 1, vb = sb.size() == 1;
    if (va) sa.insert(sa.begin(), 1);
    if (vb) sb.push_back(1);
    const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
    if (sb[sb.size() - 2] != k)
      return error(StatusCode::kInvalidArgument, "inner dims differ: ", a.type_string(), " x ", b.type_string());
    const Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    HI_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes(ba, bb));
    Shape out_shape = batch;
    if (!va) out_shape.push_back(m);
    if (!vb) out_shape.push_back(n);
    Tensor& out = ctx.output(0, a.dtype(), out_shape);
    const int64_t nb = shape_numel(batch);
    const BroadcastIndex ia(batch, ba), ib(batch, bb);
    if (a.dtype() == DType::kFloat32) {
      run_float(a.data<float>(), b.data<float>(), out.data<float>(), nb, m, n, k, ia, ib);
      return Status::ok();
    }
    bool ok = dispatch<kTypes>(a.dtype(), [&]<typename T>() {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out.data<T>();
      for (int64_t i = 0; i < nb; ++i) {
        check_run_stop();  // a long batch of products stops between matrices
        const T* am = pa + ia.offset(i) * m * k;
        const T* bm = pb + ib.offset(i) * k * n;
        T* om = po + i * m * n;
        matmul_one<T>(am, bm, om, m, n, k);
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), a.dtype());
    return Status::ok();
  }

 private:
  // float32 through product_f32 (the CPU backend's sgemm): batches that share B and read
  // consecutive A matrices (the common [batch, seq, hidden] x [hidden, out]) become one tall
  // product.
  void run_float(const float* a, const float* b, float* c, int64_t nb, int64_t m, int64_t n, int64_t k,
                 const BroadcastIndex& ia, const BroadcastIndex& ib) const {
    bool shared_b = true, consecutive_a = true;
    for (int64_t i = 0; i < nb && (shared_b || consecutive_a); ++i) {
      shared_b = shared_b && ib.offset(i) == 0;
      consecutive_a = consecutive_a && ia.offset(i) == i;
    }
    if (shared_b && consecutive_a) {
      product_f32(false, false, nb * m, n, k, 1.f, a, k, b, n, 0.f, c, n);
      return;
    }
    for (int64_t i = 0; i < nb; ++i) {
      check_run_stop();
      product_f32(false, false, m, n, k, 1.f, a + ia.offset(i) * m * k, k, b + ib.offset(i) * k * n, n, 0.f,
                  c + i * m * n, n);
    }
  }

  template <typename T>
  static void matmul_one(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      gemm_ref<T>(false, false, m, n, k, T(1), a, k, b, n, T(0), c, n);
    } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      // fp32 accumulation, one rounding at the end.
      std::vector<float> fa(static_cast<size_t>(m * k)), fb(static_cast<size_t>(k * n)), fc(static_cast<size_t>(m * n));
      for (size_t i = 0; i < fa.size(); ++i) fa[i] = static_cast<float>(a[i]);
      for (size_t i = 0; i < fb.size(); ++i) fb[i] = static_cast<float>(b[i]);
      gemm_ref<float>(false, false, m, n, k, 1.f, fa.data(), k, fb.data(), n, 0.f, fc.data(), n);
      for (size_t i = 0; i < fc.size(); ++i) c[i] = T(fc[i]);
    } else {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          T acc = 0;
          for (int64_t p = 0; p < k; ++p) acc = static_cast<T>(acc + a[i * k + p] * b[p * n + j]);
          c[i * n + j] = acc;
        }
    }
  }
};

}  // namespace hi::ops
