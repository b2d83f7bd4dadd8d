// FusedMatMul's product with its constant weights, and channels-last 1x1 convolutions, on our
// own packed AVX-512 product (backends/cpu/kernels/packed_gemm.h), or its bfloat16 form for --precision bf16:
// Y[rows, n] = act(A W + bias (+ Z)), shared out among the threads in blocks (ProductBlocks). make_matmul_kernel and
// make_conv_kernel time it against oneDNN's once and keep the faster.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "backends/cpu/kernels/packed_gemm_bf16.h"
#include "core/threading.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {
namespace {

// kBf16: the bfloat16 product (backends/cpu/kernels/packed_gemm_bf16.h), A's rows rounded to bfloat16 block by
// block as run_made_rows hands them out; float32 reads A in place.
template <bool kBf16>
class PackedMatMulKernel final : public MatMulKernel {
 public:
  using Weights = std::conditional_t<kBf16, PackedWeightsBf16, PackedWeights>;
  // Weights [k][n] (a MatMul's B), or with transposed, [n][k] (a 1x1 convolution's [O, C, 1, 1]).
  PackedMatMulKernel(int64_t rows, int64_t k, int64_t n, const float* weights, const float* bias, const Activation& act,
                     bool with_sum, bool transposed, WeightCache* cache)
      : rows_(rows), k_(k), n_(n), act_(act), with_sum_(with_sum) {
    const std::string key = std::string(kBf16 ? "packed-bf16 " : "packed-f32 ") + (transposed ? "[n][k] " : "[k][n] ") +
                            std::to_string(k) + "x" + std::to_string(n) + " bias " +
                            std::to_string(reinterpret_cast<uintptr_t>(bias));
    w_ = packed_weights<Weights>(cache, weights, key, [&] {
      Weights w;
      if constexpr (kBf16) w.pack(weights, k, n, transposed ? 1 : n, transposed ? k : 1, bias);
      else if (transposed) w.pack_rows(weights, bias, n, k, k);
      else w.pack_columns(weights, bias, k, n);
      return w;
    });
  }

  Status run(const float* a, const float* z, float* y) const override {
    const ProductBlocks blocks(rows_, k_, n_);
    auto out = [&](const ProductBlocks::Block& b) { return y + b.r0 * n_ + b.c0; };
    auto residual = [&](const ProductBlocks::Block& b) { return with_sum_ ? z + b.r0 * n_ + b.c0 : nullptr; };
    if constexpr (kBf16) {
      const int64_t kp = w_->k;  // the bfloat16 rows' length: k padded to a pair
      run_made_rows<uint16_t>(
          blocks, rows_, kp, nullptr,
          [&](int64_t r0, int64_t rows, uint16_t* dst) { convert_rows_to_bf16(a + r0 * k_, k_, rows, k_, dst, kp); },
          [&](const uint16_t* a16, const ProductBlocks::Block& b) {
            packed_gemm_bf16(a16, kp, b.rows, w_->slice(b.c0 / Weights::kVector), b.cols, out(b), n_, residual(b), n_,
                             act_);
          });
    } else {
      run_made_rows<float>(
          blocks, rows_, k_, a, [](int64_t, int64_t, float*) {},
          [&](const float* ab, const ProductBlocks::Block& b) {
            packed_gemm(ab, k_, b.rows, w_->slice(b.c0 / Weights::kVector), b.cols, out(b), n_, residual(b), n_, act_);
          });
    }
    return Status::ok();
  }

  std::string describe() const override {
    return kBf16 ? "hipinfer packed product (AVX512_BF16)" : "hipinfer packed product (AVX-512)";
  }

 private:
  int64_t rows_, k_, n_;
  Activation act_;
  bool with_sum_;
  std::shared_ptr<const Weights> w_;  // shared by the kernels of one op (backends/cpu/kernels/weight_cache.h)
};

// A 1x1 convolution with stride 1 and no padding, channels-last, is a product of the
// [pixels, C] activations with the [C, O] weights.
class PackedPointwiseConvKernel final : public ConvKernel {
 public:
  explicit PackedPointwiseConvKernel(std::unique_ptr<MatMulKernel> product) : product_(std::move(product)) {}
  Status run(const float* x, const float* sum, float* y) const override { return product_->run(x, sum, y); }
  std::string describe() const override { return "hipinfer packed 1x1 convolution (AVX-512)"; }

 private:
  std::unique_ptr<MatMulKernel> product_;
};

}  // namespace

std::unique_ptr<ConvKernel> make_packed_pointwise_conv_kernel(const ConvGeometry& g, const float* weights,
                                                              const float* bias, const Activation& act, bool with_sum,
                                                              WeightCache* cache) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || g.groups != 1 || !g.channels_last ||
      g.input_channels_first)
    return nullptr;
  int64_t pixels = g.batch;
  for (size_t i = 0; i < g.in.size(); ++i) {
    if (g.kernel[i] != 1 || g.strides[i] != 1 || g.pads_begin[i] != 0 || g.pads_end[i] != 0) return nullptr;
    pixels *= g.in[i];
  }
  if (pixels <= 0 || g.in_channels <= 0 || g.out_channels <= 0) return nullptr;
  return std::make_unique<PackedPointwiseConvKernel>(std::make_unique<PackedMatMulKernel<false>>(
      pixels, g.in_channels, g.out_channels, weights, bias, act, with_sum, true, cache));
}

std::unique_ptr<MatMulKernel> make_packed_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                        const float* bias, const Activation& act, bool with_sum,
                                                        Precision precision, WeightCache* cache) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || rows <= 0 || k <= 0 || n <= 0) return nullptr;
  if (precision == Precision::kBFloat16) {
    if (!bf16_kernels_available()) return nullptr;
    return std::make_unique<PackedMatMulKernel<true>>(rows, k, n, weights, bias, act, with_sum, false, cache);
  }
  return std::make_unique<PackedMatMulKernel<false>>(rows, k, n, weights, bias, act, with_sum, false, cache);
}

}  // namespace hi::cpu
