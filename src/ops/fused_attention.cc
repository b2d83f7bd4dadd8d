// FusedAttention (com.hipinfer, made by the attention fusion pass): multi-head scaled dot-product
// attention as BERT-style exporters write it, with the head split and merge transposes folded in.
// Q, K, V and Y are [B, S, H, D] (the Reshape before and after the heads' transposes); mask is
// optional, float32 and broadcastable to the scores [B, H, S_q, S_kv]; `scale` multiplies Q K^T.
// Per (batch, head): scores = Q K^T * scale + mask, softmax by row, Y = P V. The score matrix
// lives in a per-thread buffer, never in a tensor. Where the CPU has AVX-512 both products run on
// the packed product (cpu/packed_gemm.h), K^T (with the scale folded in) and V packed per head,
// else on sgemm.
#include <algorithm>
#include <vector>

#include "cpu/avx512_util.h"
#include "cpu/kernels.h"
#include "cpu/packed_gemm.h"
#include "cpu/threading.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class FusedAttentionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    scale_ = ctx.get_float("scale", 1.f);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
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

  Status run(RunContext& ctx) const override {
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
    // The mask's strides over [B, H, S_q, S_kv] (0 where it broadcasts).
    int64_t ms[4] = {0, 0, 0, 0};
    if (mask) {
      const Shape scores = {b, h, sq, skv};
      auto r = broadcast_shapes(mask->shape(), scores);
      if (!r.is_ok() || r.value() != scores || mask->dtype() != DType::kFloat32)
        return error(StatusCode::kInvalidArgument, "mask ", mask->type_string(),
                     " does not broadcast to the scores float32", shape_to_string(scores));
      const Shape& m = mask->shape();
      int64_t stride = 1;
      for (int64_t i = static_cast<int64_t>(m.size()) - 1, dim = 3; i >= 0; --i, --dim) {
        ms[dim] = m[static_cast<size_t>(i)] == 1 ? 0 : stride;
        stride *= m[static_cast<size_t>(i)];
      }
    }
    Tensor& y = ctx.output(0, DType::kFloat32, {b, sq, h, dv});
    const float* pq = q.data<float>();
    const float* pk = k.data<float>();
    const float* pv = v.data<float>();
    const float* pm = mask ? mask->data<float>() : nullptr;
    float* py = y.data<float>();
    if (y.numel() == 0) return Status::ok();
    if (skv == 0) {
      std::fill(py, py + y.numel(), 0.f);
      return Status::ok();
    }
    const bool packed = cpu::avx512_kernels_available();
    cpu::parallel_for(b * h, 1, [&](int64_t t0, int64_t t1) {
      thread_local cpu::AlignedVector<float> scores;
      thread_local cpu::PackedWeights kt, vp;  // this head's K^T * scale and V, packed
      scores.resize(static_cast<size_t>(sq * skv));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t bi = t / h, hi = t % h;
        // Head hi of batch bi: rows of [S, H, D] at a stride of H * D.
        const float* qh = pq + (bi * sq * h + hi) * d;
        const float* kh = pk + (bi * skv * h + hi) * d;
        const float* vh = pv + (bi * skv * h + hi) * dv;
        if (packed) {
          kt.pack(kh, d, d, skv, 1, h * d, scale_, nullptr);  // element (i, j) = K[j][i] * scale
          cpu::packed_gemm(qh, h * d, sq, kt.slice(0), skv, scores.data(), skv, nullptr, 0, cpu::Activation{});
        } else {
          cpu::sgemm(false, true, sq, skv, d, scale_, qh, h * d, kh, h * d, 0.f, scores.data(), skv);
        }
        // A mask whose rows are contiguous (BERT's [B, 1, 1, S] among them) is added by the
        // softmax in its own pass; any other broadcast first, element by element.
        const float* mask_rows = pm && ms[3] == 1 ? pm + bi * ms[0] + hi * ms[1] : nullptr;
        if (pm && !mask_rows) {
          for (int64_t i = 0; i < sq; ++i) {
            const float* mr = pm + bi * ms[0] + hi * ms[1] + i * ms[2];
            float* sr = scores.data() + i * skv;
            for (int64_t j = 0; j < skv; ++j) sr[j] += mr[j * ms[3]];
          }
        }
        cpu::softmax_rows(scores.data(), scores.data(), sq, skv, mask_rows, ms[2]);
        float* yh = py + (bi * sq * h + hi) * dv;
        if (packed) {
          vp.pack(vh, skv, skv, dv, h * dv, 1, 1.f, nullptr);
          cpu::packed_gemm(scores.data(), skv, sq, vp.slice(0), dv, yh, h * dv, nullptr, 0, cpu::Activation{});
        } else {
          cpu::sgemm(false, false, sq, dv, skv, 1.f, scores.data(), skv, vh, h * dv, 0.f, yh, h * dv);
        }
      }
    });
    return Status::ok();
  }

 private:
  float scale_ = 1.f;
};

}  // namespace

HI_REGISTER_OP(FusedAttention, FusedAttentionOp)

}  // namespace hi::ops
