// A direct convolution for the first layer of a CNN: few input channels (an image's 1-4), read
// channels-first as the model is fed, written channels-last for the layers after it. oneDNN
// handles this case by reordering the image to its layout first and then running a kernel made
// for many channels; here each output pixel's taps (C x kh x kw scalars) are broadcast against
// the packed weights of 16 output channels at a time, 12 pixels x 2 vectors of accumulators.
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/aligned.h"
#include "backends/cpu/kernels/avx512_util.h"
#include "core/threading.h"

namespace hi::cpu {

#ifndef HI_HAVE_AVX512_KERNELS

std::unique_ptr<ConvKernel> make_image_conv_kernel(const ConvGeometry&, const float*, const float*, const Activation&,
                                                   bool) {
  return nullptr;
}

#else

namespace {

constexpr int kTile = 12;  // pixels per register tile: 12 x 2 vectors of accumulators

class ImageConvKernel final : public ConvKernel {
 public:
  ImageConvKernel(const ConvGeometry& g, const float* weights, const float* bias, const Activation& act, bool with_sum)
      : g_(g), act_(act), with_sum_(with_sum) {
    out_padded_ = round_up(g.out_channels, kLanes);
    const int64_t taps = g.in_channels * g.kernel[0] * g.kernel[1];
    // [tap][output channel], taps in the weights' own (c, ky, kx) order.
    w_.assign(static_cast<size_t>(taps * out_padded_), 0.f);
    b_.assign(static_cast<size_t>(out_padded_), 0.f);
    for (int64_t o = 0; o < g.out_channels; ++o) {
      for (int64_t t = 0; t < taps; ++t) w_[static_cast<size_t>(t * out_padded_ + o)] = weights[o * taps + t];
      if (bias) b_[static_cast<size_t>(o)] = bias[o];
    }
  }

  Status run(const float* x, const float* sum, float* y) const override {
    const int64_t rows = g_.batch * g_.out[0];
    parallel_for(rows, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) row(x, with_sum_ ? sum : nullptr, y, r / g_.out[0], r % g_.out[0]);
    });
    return Status::ok();
  }

  std::string describe() const override { return "hipinfer direct image convolution (AVX-512)"; }

 private:
  struct Row {
    const float* x;  // the image, channels-first
    const float* z;  // the residual row or null
    float* y;        // the output row, channels-last
    int64_t ky0, ky1, iy_first;
  };

  HI_AVX512 void row(const float* x, const float* z, float* y, int64_t n, int64_t oy) const {
    const int64_t h = g_.in[0], w = g_.in[1], kw = g_.kernel[1], sw = g_.strides[1], pl = g_.pads_begin[1];
    const int64_t ow = g_.out[1], o = g_.out_channels;
    Row r;
    r.x = x + n * g_.in_channels * h * w;
    const int64_t first = (n * g_.out[0] + oy) * ow * o;
    r.y = y + first;
    r.z = z ? z + first : nullptr;
    r.iy_first = oy * g_.strides[0] - g_.pads_begin[0];
    r.ky0 = std::max<int64_t>(0, -r.iy_first);
    r.ky1 = std::min(g_.kernel[0], h - r.iy_first);
    // Columns whose taps all lie inside the image: [inner0, inner1).
    const int64_t inner0 = std::min(ow, (pl + sw - 1) / sw);
    const int64_t inner1 = std::max(inner0, std::min(ow, (w - kw + pl) / sw + 1));
    const int64_t vectors = out_padded_ / kLanes;
    for (int64_t v0 = 0; v0 < vectors; v0 += 2) {
      const bool two = v0 + 1 < vectors;
      int64_t ox = 0;
      for (; ox < inner0; ++ox) edge_pixel(r, ox, v0, two ? 2 : 1);
      for (; ox + kTile <= inner1; ox += kTile) two ? tile<2>(r, ox, v0) : tile<1>(r, ox, v0);
      for (; ox < ow; ++ox) edge_pixel(r, ox, v0, two ? 2 : 1);
    }
  }

  // Stores acc (output channels v0 * 16 ...) for pixel ox, adding the residual and activating.
  HI_AVX512 void store(const Row& r, int64_t ox, int64_t v0, int nv, const __m512* acc) const {
    for (int j = 0; j < nv; ++j) {
      const int64_t c = (v0 + j) * kLanes, left = g_.out_channels - c;
      const __mmask16 mask = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      const int64_t at = ox * g_.out_channels + c;
      __m512 v = acc[j];
      if (r.z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, r.z + at));
      _mm512_mask_storeu_ps(r.y + at, mask, activate(v, act_));
    }
  }

  // kTile interior pixels from ox on, NV vectors of output channels from v0 on.
  template <int NV>
  HI_AVX512 void tile(const Row& r, int64_t ox, int64_t v0) const {
    const int64_t h = g_.in[0], w = g_.in[1], kh = g_.kernel[0], kw = g_.kernel[1], sw = g_.strides[1];
    __m512 acc[kTile][NV];
#pragma GCC unroll 2
    for (int j = 0; j < NV; ++j) {
      const __m512 b = _mm512_loadu_ps(b_.data() + (v0 + j) * kLanes);
#pragma GCC unroll 12
      for (int p = 0; p < kTile; ++p) acc[p][j] = b;
    }
    for (int64_t c = 0; c < g_.in_channels; ++c) {
      for (int64_t ky = r.ky0; ky < r.ky1; ++ky) {
        const float* xr = r.x + (c * h + r.iy_first + ky) * w + ox * sw - g_.pads_begin[1];
        const float* wt = w_.data() + ((c * kh + ky) * kw) * out_padded_ + v0 * kLanes;
        for (int64_t kx = 0; kx < kw; ++kx) {
          __m512 wv[NV];
#pragma GCC unroll 2
          for (int j = 0; j < NV; ++j) wv[j] = _mm512_loadu_ps(wt + kx * out_padded_ + j * kLanes);
#pragma GCC unroll 12
          for (int p = 0; p < kTile; ++p) {
            const __m512 xv = _mm512_set1_ps(xr[p * sw + kx]);
#pragma GCC unroll 2
            for (int j = 0; j < NV; ++j) acc[p][j] = _mm512_fmadd_ps(xv, wv[j], acc[p][j]);
          }
        }
      }
    }
    // The epilogue here rather than in store(): passing acc out would keep it in memory.
    __mmask16 masks[NV];
#pragma GCC unroll 2
    for (int j = 0; j < NV; ++j) {
      const int64_t left = g_.out_channels - (v0 + j) * kLanes;
      masks[j] = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    }
#pragma GCC unroll 12
    for (int p = 0; p < kTile; ++p) {
#pragma GCC unroll 2
      for (int j = 0; j < NV; ++j) {
        const int64_t at = (ox + p) * g_.out_channels + (v0 + j) * kLanes;
        __m512 v = acc[p][j];
        if (r.z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(masks[j], r.z + at));
        _mm512_mask_storeu_ps(r.y + at, masks[j], activate(v, act_));
      }
    }
  }

  // One pixel whose window may leave the image (taps outside are zero padding).
  HI_AVX512 void edge_pixel(const Row& r, int64_t ox, int64_t v0, int nv) const {
    const int64_t h = g_.in[0], w = g_.in[1], kh = g_.kernel[0], kw = g_.kernel[1];
    const int64_t ix_first = ox * g_.strides[1] - g_.pads_begin[1];
    const int64_t kx0 = std::max<int64_t>(0, -ix_first), kx1 = std::min(kw, w - ix_first);
    __m512 acc[2];
    for (int j = 0; j < nv; ++j) acc[j] = _mm512_loadu_ps(b_.data() + (v0 + j) * kLanes);
    for (int64_t c = 0; c < g_.in_channels; ++c)
      for (int64_t ky = r.ky0; ky < r.ky1; ++ky)
        for (int64_t kx = kx0; kx < kx1; ++kx) {
          const __m512 xv = _mm512_set1_ps(r.x[(c * h + r.iy_first + ky) * w + ix_first + kx]);
          const float* wt = w_.data() + ((c * kh + ky) * kw + kx) * out_padded_ + v0 * kLanes;
          for (int j = 0; j < nv; ++j) acc[j] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(wt + j * kLanes), acc[j]);
        }
    store(r, ox, v0, nv, acc);
  }

  ConvGeometry g_;
  Activation act_;
  bool with_sum_;
  int64_t out_padded_ = 0;
  AlignedVector<float> w_, b_;
};

}  // namespace

std::unique_ptr<ConvKernel> make_image_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                   const Activation& act, bool with_sum) {
  if (!avx512_kernels_available() || !vector_activation_supported(act)) return nullptr;
  if (g.kernel.size() != 2 || g.groups != 1 || g.in_channels > 4 || g.out_channels < 1 || !g.channels_last ||
      !g.input_channels_first)
    return nullptr;
  for (size_t i = 0; i < 2; ++i)
    if (g.dilations[i] != 1) return nullptr;
  return std::make_unique<ImageConvKernel>(g, weights, bias, act, with_sum);
}

#endif

}  // namespace hi::cpu
