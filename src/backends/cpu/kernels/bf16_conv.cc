// Convolutions in bfloat16 (--precision bf16) as implicit products on the bfloat16 packed
// product (backends/cpu/kernels/packed_gemm_bf16.h): each output pixel is a row holding its receptive field, the
// kernel's taps x C input channels, gathered from the channels-last float32 input and rounded to
// bfloat16 one block of rows at a time, times the weights packed once as [taps x C, O]. There is
// no im2col matrix in memory and no reorder of the whole input into bfloat16 first (oneDNN's
// kernels need one per call; a stride-2 1x1 convolution here reads only the quarter it uses).
// Row blocks are gathered as a thread reaches them when the rows are the larger operand, else
// all at once first (run_made_rows). make_conv_kernel times it against the other candidates.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "backends/cpu/kernels/packed_gemm_bf16.h"
#include "core/threading.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {
namespace {

class Bf16ConvKernel final : public ConvKernel {
 public:
  Bf16ConvKernel(const ConvGeometry& g, const float* weights, const float* bias, const Activation& act, bool with_sum,
                 WeightCache* cache)
      : g_(g), act_(act), with_sum_(with_sum) {
    c_ = g.in_channels;
    o_ = g.out_channels;
    cp_ = (c_ + 1) / 2 * 2;  // each tap's channels in whole pairs: a pair never spans two taps
    taps_ = g.kernel[0] * g.kernel[1];
    k_ = taps_ * cp_;
    pixels_ = g.batch * g.out[0] * g.out[1];
    contiguous_ = taps_ == 1 && g.strides[0] == 1 && g.strides[1] == 1 && g.pads_begin[0] == 0 &&
                  g.pads_begin[1] == 0 && g.in[0] == g.out[0] && g.in[1] == g.out[1];
    const std::string key = "implicit-bf16 " + std::to_string(k_) + "x" + std::to_string(o_) + " bias " +
                            std::to_string(reinterpret_cast<uintptr_t>(bias));
    w_ = packed_weights<PackedWeightsBf16>(cache, weights, key, [&] { return pack(weights, bias); });
  }

  Status run(const float* x, const float* sum, float* y) const override {
    run_made_rows<uint16_t>(
        ProductBlocks(pixels_, k_, o_), pixels_, k_, nullptr,
        [&](int64_t r0, int64_t rows, uint16_t* dst) { gather(x, r0, rows, dst); },
        [&](const uint16_t* a, const ProductBlocks::Block& b) {
          packed_gemm_bf16(a, k_, b.rows, w_->slice(b.c0 / PackedWeightsBf16::kVector), b.cols, y + b.r0 * o_ + b.c0,
                           o_, with_sum_ ? sum + b.r0 * o_ + b.c0 : nullptr, o_, act_);
        });
    return Status::ok();
  }

  std::string describe() const override { return "hipinfer implicit product (AVX512_BF16)"; }

 private:
  // Weights [O, C, kh, kw] as the product's [k = tap x cp + c, O].
  PackedWeightsBf16 pack(const float* weights, const float* bias) const {
    std::vector<float> dense(static_cast<size_t>(k_ * o_), 0.f);
    for (int64_t o = 0; o < o_; ++o)
      for (int64_t c = 0; c < c_; ++c)
        for (int64_t t = 0; t < taps_; ++t)
          dense[static_cast<size_t>((t * cp_ + c) * o_ + o)] = weights[(o * c_ + c) * taps_ + t];
    PackedWeightsBf16 w;
    w.pack(dense.data(), k_, o_, o_, 1, bias);
    return w;
  }

  // Rows [r0, r0 + rows) of the implicit matrix into dst (k_ values each): every tap's C inputs,
  // zeros where the tap falls in the padding.
  void gather(const float* x, int64_t r0, int64_t rows, uint16_t* dst) const {
    if (contiguous_) {
      convert_rows_to_bf16(x + r0 * c_, c_, rows, c_, dst, k_);
      return;
    }
    const int64_t h = g_.in[0], w = g_.in[1], oh = g_.out[0], ow = g_.out[1];
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t p = r0 + r, n = p / (oh * ow), oy = p / ow % oh, ox = p % ow;
      uint16_t* row = dst + r * k_;
      for (int64_t ky = 0; ky < g_.kernel[0]; ++ky) {
        const int64_t iy = oy * g_.strides[0] - g_.pads_begin[0] + ky * g_.dilations[0];
        for (int64_t kx = 0; kx < g_.kernel[1]; ++kx) {
          const int64_t ix = ox * g_.strides[1] - g_.pads_begin[1] + kx * g_.dilations[1];
          uint16_t* tap = row + (ky * g_.kernel[1] + kx) * cp_;
          if (iy < 0 || iy >= h || ix < 0 || ix >= w) std::memset(tap, 0, static_cast<size_t>(cp_) * sizeof(uint16_t));
          else convert_rows_to_bf16(x + ((n * h + iy) * w + ix) * c_, c_, 1, c_, tap, cp_);
        }
      }
    }
  }

  ConvGeometry g_;
  Activation act_;
  bool with_sum_, contiguous_ = false;
  int64_t c_ = 0, o_ = 0, cp_ = 0, taps_ = 0, k_ = 0, pixels_ = 0;
  std::shared_ptr<const PackedWeightsBf16> w_;  // shared by the kernels of one op (backends/cpu/kernels/weight_cache.h)
};

}  // namespace

std::unique_ptr<ConvKernel> make_bf16_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                  const Activation& act, bool with_sum, WeightCache* cache) {
  if (!bf16_kernels_available() || !vector_activation_supported(act) || g.kernel.size() != 2 || g.groups != 1 ||
      !g.channels_last || g.input_channels_first)
    return nullptr;
  if (g.batch <= 0 || g.in_channels <= 0 || g.out_channels <= 0 || g.out[0] <= 0 || g.out[1] <= 0) return nullptr;
  return std::make_unique<Bf16ConvKernel>(g, weights, bias, act, with_sum, cache);
}

}  // namespace hi::cpu
