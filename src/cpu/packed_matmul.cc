// FusedMatMul's product with its constant weights, and channels-last 1x1 convolutions, on our
// own packed AVX-512 product (cpu/packed_gemm.h): Y[rows, n] = act(A W + bias (+ Z)), shared out
// among the threads in blocks (ProductBlocks). make_matmul_kernel and make_conv_kernel time it
// against oneDNN's once and keep the faster.
#include <algorithm>

#include "cpu/avx512_util.h"
#include "cpu/packed_gemm.h"
#include "cpu/threading.h"

namespace hi::cpu {
namespace {

class PackedMatMulKernel final : public MatMulKernel {
 public:
  // Weights [k][n] (a MatMul's B), or with transposed, [n][k] (a 1x1 convolution's [O, C, 1, 1]).
  PackedMatMulKernel(int64_t rows, int64_t k, int64_t n, const float* weights, const float* bias, const Activation& act,
                     bool with_sum, bool transposed)
      : rows_(rows), n_(n), act_(act), with_sum_(with_sum) {
    if (transposed) w_.pack_rows(weights, bias, n, k, k);
    else w_.pack_columns(weights, bias, k, n);
  }

  Status run(const float* a, const float* z, float* y) const override {
    const int64_t k = w_.k;
    const ProductBlocks blocks(rows_, k, n_);
    parallel_for(blocks.count(), 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const ProductBlocks::Block b = blocks[t];
        packed_gemm(a + b.r0 * k, k, b.rows, w_.slice(b.c0 / PackedWeights::kVector), b.cols, y + b.r0 * n_ + b.c0, n_,
                    with_sum_ ? z + b.r0 * n_ + b.c0 : nullptr, n_, act_);
      }
    });
    return Status::ok();
  }

  std::string describe() const override { return "hipinfer packed product (AVX-512)"; }

 private:
  int64_t rows_, n_;
  Activation act_;
  bool with_sum_;
  PackedWeights w_;
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

std::unique_ptr<ConvKernel> make_packed_pointwise_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                              const Activation& act, bool with_sum) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || g.groups != 1 || !g.channels_last ||
      g.input_channels_first)
    return nullptr;
  int64_t pixels = g.batch;
  for (size_t i = 0; i < g.in.size(); ++i) {
    if (g.kernel[i] != 1 || g.strides[i] != 1 || g.pads_begin[i] != 0 || g.pads_end[i] != 0) return nullptr;
    pixels *= g.in[i];
  }
  if (pixels <= 0 || g.in_channels <= 0 || g.out_channels <= 0) return nullptr;
  return std::make_unique<PackedPointwiseConvKernel>(std::make_unique<PackedMatMulKernel>(
      pixels, g.in_channels, g.out_channels, weights, bias, act, with_sum, true));
}

std::unique_ptr<MatMulKernel> make_packed_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                        const float* bias, const Activation& act, bool with_sum) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || rows <= 0 || k <= 0 || n <= 0) return nullptr;
  return std::make_unique<PackedMatMulKernel>(rows, k, n, weights, bias, act, with_sum, false);
}

}  // namespace hi::cpu
