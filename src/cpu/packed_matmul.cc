// FusedMatMul's product with its constant weights, and channels-last 1x1 convolutions, on our
// own packed AVX-512 product (cpu/packed_gemm.h): Y[rows, n] = act(A W + bias (+ Z)). The work
// is cut into blocks of 64 output columns x 48 rows, shared out in order among the threads:
// column blocks outermost when the weights are larger than the rows (each thread reads its share
// of the weights), else row blocks (each thread reads its share of the rows once).
// make_matmul_kernel and make_conv_kernel time it against oneDNN's once and keep the faster.
#include <algorithm>

#include "cpu/avx512_util.h"
#include "cpu/packed_gemm.h"
#include "cpu/threading.h"

namespace hi::cpu {
namespace {

constexpr int64_t kBlockRows = 48, kBlockVectors = 4;

class PackedMatMulKernel final : public MatMulKernel {
 public:
  PackedMatMulKernel(int64_t rows, int64_t k, int64_t n, const float* weights, const float* bias, const Activation& act,
                     bool with_sum)
      : rows_(rows), n_(n), act_(act), with_sum_(with_sum) {
    if (weights) w_.pack_columns(weights, bias, k, n);
  }
  // Weights given as [n][k] (a 1x1 convolution's [O, C, 1, 1]) instead.
  void pack_rows(const float* weights, const float* bias, int64_t n, int64_t k) { w_.pack_rows(weights, bias, n, k, k); }

  Status run(const float* a, const float* z, float* y) const override {
    const int64_t row_blocks = (rows_ + kBlockRows - 1) / kBlockRows;
    const int64_t col_blocks = (w_.vectors + kBlockVectors - 1) / kBlockVectors;
    const int64_t k = w_.k;
    // Column blocks outermost when the weights are the larger operand (each thread then reads its
    // share of them), row blocks outermost when the rows are (each thread reads its rows once,
    // every block of the weights staying in its cache).
    const bool rows_outer = rows_ * k > w_.k * w_.vectors * PackedWeights::kVector;
    parallel_for(row_blocks * col_blocks, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t rb = rows_outer ? t / col_blocks : t % row_blocks, cb = rows_outer ? t % col_blocks : t / row_blocks;
        const int64_t v0 = cb * kBlockVectors, r0 = rb * kBlockRows;
        const int64_t c0 = v0 * PackedWeights::kVector, cols = std::min(kBlockVectors * PackedWeights::kVector, n_ - c0);
        const int64_t rows = std::min(kBlockRows, rows_ - r0);
        packed_gemm(a + r0 * k, k, rows, w_.slice(v0), cols, y + r0 * n_ + c0, n_,
                    with_sum_ ? z + r0 * n_ + c0 : nullptr, n_, act_);
      }
    });
    return Status::ok();
  }

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
  PackedPointwiseConvKernel(std::unique_ptr<PackedMatMulKernel> product) : product_(std::move(product)) {}
  Status run(const float* x, const float* sum, float* y) const override { return product_->run(x, sum, y); }
  std::string describe() const override { return "hipinfer packed 1x1 convolution (AVX-512)"; }

 private:
  std::unique_ptr<PackedMatMulKernel> product_;
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
  auto product = std::make_unique<PackedMatMulKernel>(pixels, g.in_channels, g.out_channels, nullptr, bias, act, with_sum);
  product->pack_rows(weights, bias, g.out_channels, g.in_channels);
  return std::make_unique<PackedPointwiseConvKernel>(std::move(product));
}

std::unique_ptr<MatMulKernel> make_packed_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                        const float* bias, const Activation& act, bool with_sum) {
  if (!avx512_kernels_available() || !vector_activation_supported(act) || rows <= 0 || k <= 0 || n <= 0) return nullptr;
  return std::make_unique<PackedMatMulKernel>(rows, k, n, weights, bias, act, with_sum);
}

}  // namespace hi::cpu
