// FusedAttention on the CPU: per (batch, head), both products on the packed product
// (backends/cpu/kernels/packed_gemm.h) where the CPU has AVX-512, K^T (with the scale folded in) and V packed per
// head, else on sgemm; the softmax on the vector row kernel, which adds a mask with contiguous rows
// (BERT's [B, 1, 1, S] among them) in its own pass.
#include <algorithm>

#include "core/threading.h"
#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "ops/fused_attention.h"

namespace hi::cpu {
namespace {

class CpuFusedAttention final : public ops::FusedAttentionOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Dims g, dims(ctx));
    const int64_t b = g.b, sq = g.sq, h = g.h, d = g.d, skv = g.skv, dv = g.dv;
    const int64_t* ms = g.mask_strides;
    const Tensor* mask = ctx.input(3);
    Tensor& y = ctx.output(0, DType::kFloat32, {b, sq, h, dv});
    const float* pq = ctx.in(0).data<float>();
    const float* pk = ctx.in(1).data<float>();
    const float* pv = ctx.in(2).data<float>();
    const float* pm = mask ? mask->data<float>() : nullptr;
    float* py = y.data<float>();
    if (y.numel() == 0) return Status::ok();
    if (skv == 0) {
      std::fill(py, py + y.numel(), 0.f);
      return Status::ok();
    }
    const bool packed = avx512_kernels_available();
    parallel_for(b * h, 1, [&](int64_t t0, int64_t t1) {
      thread_local AlignedVector<float> scores;
      thread_local PackedWeights kt, vp;  // this head's K^T * scale and V, packed
      scores.resize(static_cast<size_t>(sq * skv));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t bi = t / h, hi = t % h;
        // Head hi of batch bi: rows of [S, H, D] at a stride of H * D.
        const float* qh = pq + (bi * sq * h + hi) * d;
        const float* kh = pk + (bi * skv * h + hi) * d;
        const float* vh = pv + (bi * skv * h + hi) * dv;
        if (packed) {
          kt.pack(kh, d, d, skv, 1, h * d, scale_, nullptr);  // element (i, j) = K[j][i] * scale
          packed_gemm(qh, h * d, sq, kt.slice(0), skv, scores.data(), skv, nullptr, 0, Activation{});
        } else {
          sgemm(false, true, sq, skv, d, scale_, qh, h * d, kh, h * d, 0.f, scores.data(), skv);
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
        softmax_rows(scores.data(), scores.data(), sq, skv, mask_rows, ms[2]);
        float* yh = py + (bi * sq * h + hi) * dv;
        if (packed) {
          vp.pack(vh, skv, skv, dv, h * dv, 1, 1.f, nullptr);
          packed_gemm(scores.data(), skv, sq, vp.slice(0), dv, yh, h * dv, nullptr, 0, Activation{});
        } else {
          sgemm(false, false, sq, dv, skv, 1.f, scores.data(), skv, vh, h * dv, 0.f, yh, h * dv);
        }
      }
    });
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_CPU_OP(FusedAttention, CpuFusedAttention)

}  // namespace hi::cpu
