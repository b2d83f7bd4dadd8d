// Winograd F(2x2, 3x3) for channels-last 3x3 convolutions with stride 1 (Lavin and Gray, 2015):
// each 2x2 block of outputs comes from a 4x4 block of inputs through 16 products of C input
// channels by O output channels, where the direct convolution does 36: the input block is
// transformed (B^T d B), the 16 transformed positions are multiplied by the transformed weights
// (G g G^T, packed once) on the packed product, and the results transformed back (A^T m A) with
// the bias, residual and activation. F(4x4, 3x3) does 4x fewer multiplications instead of 2.25x,
// but its transforms' large coefficients cost accuracy: through ResNet-50's sixteen 3x3 layers
// its logits drifted 1.5x past the 1e-4 agreement with ONNX Runtime that fp32 must keep. Tiles are taken in groups
// sized so that a group's transformed inputs and products stay in the cache; groups are shared out among the threads.
// make_conv_kernel times it against oneDNN's direct (and Winograd) kernels and keeps the fastest.
#include <algorithm>
#include <array>
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

#ifndef HI_HAVE_AVX512_KERNELS

std::unique_ptr<ConvKernel> make_winograd_conv_kernel(const ConvGeometry&, const float*, const float*,
                                                      const Activation&, bool, Precision, WeightCache*) {
  return nullptr;
}

#else

namespace {

constexpr int kIn = 4, kOut = 2, kPositions = kIn * kIn;

// G (4x3): the weight transform.
constexpr float kG[kIn][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};

// t = B^T d along one axis, for four vectors d[0..3]. Rows of B^T: [1 0 -1 0], [0 1 1 0],
// [0 -1 1 0], [0 1 0 -1].
HI_AVX512 inline void input_transform_1d(const __m512* d, __m512* t) {
  t[0] = _mm512_sub_ps(d[0], d[2]);
  t[1] = _mm512_add_ps(d[1], d[2]);
  t[2] = _mm512_sub_ps(d[2], d[1]);
  t[3] = _mm512_sub_ps(d[1], d[3]);
}

// o = A^T m along one axis, for four vectors m[0..3]. Rows of A^T: [1 1 1 0], [0 1 -1 -1].
HI_AVX512 inline void output_transform_1d(const __m512* m, __m512* o) {
  o[0] = _mm512_add_ps(_mm512_add_ps(m[0], m[1]), m[2]);
  o[1] = _mm512_sub_ps(_mm512_sub_ps(m[1], m[2]), m[3]);
}

// kBf16: the 16 products on the bfloat16 product (backends/cpu/kernels/packed_gemm_bf16.h), for --precision bf16.
template <bool kBf16>
class WinogradConvKernel final : public ConvKernel {
 public:
  using Weights = std::conditional_t<kBf16, PackedWeightsBf16, PackedWeights>;
  using Transformed = std::array<Weights, kPositions>;
  WinogradConvKernel(const ConvGeometry& g, const float* weights, const float* bias, const Activation& act,
                     bool with_sum, WeightCache* cache)
      : g_(g), act_(act), with_sum_(with_sum) {
    c_ = g.in_channels;
    o_ = g.out_channels;
    c_padded_ = round_up(c_, kLanes);
    o_padded_ = round_up(o_, kLanes);
    tiles_h_ = (g.out[0] + kOut - 1) / kOut;
    tiles_w_ = (g.out[1] + kOut - 1) / kOut;
    const std::string key =
        std::string(kBf16 ? "winograd-bf16 " : "winograd-f32 ") + std::to_string(c_) + "x" + std::to_string(o_);
    u_ = packed_weights<Transformed>(cache, weights, key, [&] { return transform_weights(weights); });
    bias_.assign(static_cast<size_t>(o_padded_), 0.f);
    if (bias) std::copy(bias, bias + o_, bias_.begin());
    // Tiles per group: the transformed inputs and products of a group in about 512 KiB.
    const int64_t per_tile = kPositions * (c_padded_ + o_padded_) * static_cast<int64_t>(sizeof(float));
    group_ = std::clamp<int64_t>((512 << 10) / per_tile, 4, 48);
  }

  Status run(const float* x, const float* sum, float* y) const override {
    const int64_t tiles = g_.batch * tiles_h_ * tiles_w_;
    const int64_t groups = (tiles + group_ - 1) / group_;
    parallel_for(groups, 1, [&](int64_t g0, int64_t g1) {
      for (int64_t grp = g0; grp < g1; ++grp)
        run_group(x, with_sum_ ? sum : nullptr, y, grp * group_, std::min(tiles, (grp + 1) * group_));
    });
    return Status::ok();
  }

  std::string describe() const override {
    return kBf16 ? "hipinfer Winograd F(2x2,3x3) (AVX512_BF16)" : "hipinfer Winograd F(2x2,3x3) (AVX-512)";
  }

 private:
  // U[p] = (G g G^T)[p] for every (output, input) channel pair, as [C][O] packed per position.
  Transformed transform_weights(const float* weights) const {
    std::vector<float> u(static_cast<size_t>(kPositions * c_ * o_));
    for (int64_t oc = 0; oc < o_; ++oc)
      for (int64_t ic = 0; ic < c_; ++ic) {
        const float* k = weights + (oc * c_ + ic) * 9;
        float gk[kIn][3];  // G g
        for (int i = 0; i < kIn; ++i)
          for (int j = 0; j < 3; ++j) gk[i][j] = kG[i][0] * k[j] + kG[i][1] * k[3 + j] + kG[i][2] * k[6 + j];
        for (int i = 0; i < kIn; ++i)
          for (int j = 0; j < kIn; ++j)
            u[static_cast<size_t>(((i * kIn + j) * c_ + ic) * o_ + oc)] =
                gk[i][0] * kG[j][0] + gk[i][1] * kG[j][1] + gk[i][2] * kG[j][2];
      }
    Transformed packed;
    for (int p = 0; p < kPositions; ++p) {
      if constexpr (kBf16) packed[static_cast<size_t>(p)].pack(u.data() + p * c_ * o_, c_, o_, o_, 1, nullptr);
      else packed[static_cast<size_t>(p)].pack(u.data() + p * c_ * o_, c_, c_padded_, o_, o_, 1, 1.f, nullptr);
    }
    return packed;
  }

  HI_AVX512 void run_group(const float* x, const float* z, float* y, int64_t t0, int64_t t1) const {
    const int64_t n_tiles = t1 - t0;
    thread_local AlignedVector<float> v_buf, m_buf;
    v_buf.resize(static_cast<size_t>(kPositions * n_tiles * c_padded_));
    m_buf.resize(static_cast<size_t>(kPositions * n_tiles * o_padded_));
    float* v = v_buf.data();  // [position][tile][C]
    float* m = m_buf.data();  // [position][tile][O]
    for (int64_t t = t0; t < t1; ++t) transform_input(x, t, v + (t - t0) * c_padded_, n_tiles * c_padded_);
    if constexpr (kBf16) {
      // Rounded to bfloat16 in one pass over the group's transformed inputs (still in the cache).
      thread_local AlignedVector<uint16_t> v16_buf;
      v16_buf.resize(v_buf.size());
      convert_rows_to_bf16(v, c_padded_, kPositions * n_tiles, c_padded_, v16_buf.data(), c_padded_);
      for (int p = 0; p < kPositions; ++p)
        packed_gemm_bf16(v16_buf.data() + p * n_tiles * c_padded_, c_padded_, n_tiles,
                         (*u_)[static_cast<size_t>(p)].slice(0), o_padded_, m + p * n_tiles * o_padded_, o_padded_,
                         nullptr, 0, Activation{});
    } else {
      for (int p = 0; p < kPositions; ++p)
        packed_gemm(v + p * n_tiles * c_padded_, c_padded_, n_tiles, (*u_)[static_cast<size_t>(p)].slice(0), o_padded_,
                    m + p * n_tiles * o_padded_, o_padded_, nullptr, 0, Activation{});
    }
    for (int64_t t = t0; t < t1; ++t) transform_output(m + (t - t0) * o_padded_, n_tiles * o_padded_, t, z, y);
  }

  // Tile t's 4x4 input block (zeros outside the image), transformed, into v[p * stride + c].
  HI_AVX512 void transform_input(const float* x, int64_t t, float* v, int64_t stride) const {
    const int64_t h = g_.in[0], w = g_.in[1];
    const int64_t n = t / (tiles_h_ * tiles_w_), ty = t / tiles_w_ % tiles_h_, tx = t % tiles_w_;
    const int64_t iy0 = ty * kOut - g_.pads_begin[0], ix0 = tx * kOut - g_.pads_begin[1];
    const float* xn = x + n * h * w * c_;
    for (int64_t c = 0; c < c_padded_; c += kLanes) {
      const int64_t left = c_ - c;
      const __mmask16 mask = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << std::max<int64_t>(left, 0)) - 1);
      __m512 d[kIn][kIn];
      for (int i = 0; i < kIn; ++i)
        for (int j = 0; j < kIn; ++j) {
          const int64_t iy = iy0 + i, ix = ix0 + j;
          d[i][j] = iy >= 0 && iy < h && ix >= 0 && ix < w ? _mm512_maskz_loadu_ps(mask, xn + (iy * w + ix) * c_ + c)
                                                           : _mm512_setzero_ps();
        }
      // Rows, then columns.
      __m512 r[kIn][kIn];
      for (int j = 0; j < kIn; ++j) {
        __m512 col[kIn], out[kIn];
        for (int i = 0; i < kIn; ++i) col[i] = d[i][j];
        input_transform_1d(col, out);
        for (int i = 0; i < kIn; ++i) r[i][j] = out[i];
      }
      for (int i = 0; i < kIn; ++i) {
        __m512 out[kIn];
        input_transform_1d(r[i], out);
        for (int j = 0; j < kIn; ++j) _mm512_storeu_ps(v + (i * kIn + j) * stride + c, out[j]);
      }
    }
  }

  // Tile t's 2x2 outputs from its 16 products (m[p * stride + o]), with bias, residual, activation.
  HI_AVX512 void transform_output(const float* m, int64_t stride, int64_t t, const float* z, float* y) const {
    const int64_t oh = g_.out[0], ow = g_.out[1];
    const int64_t n = t / (tiles_h_ * tiles_w_), ty = t / tiles_w_ % tiles_h_, tx = t % tiles_w_;
    const int64_t rows = std::min<int64_t>(kOut, oh - ty * kOut), cols = std::min<int64_t>(kOut, ow - tx * kOut);
    for (int64_t o = 0; o < o_padded_; o += kLanes) {
      const int64_t left = o_ - o;
      const __mmask16 mask = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << std::max<int64_t>(left, 0)) - 1);
      __m512 r[kOut][kIn];
      for (int j = 0; j < kIn; ++j) {
        __m512 col[kIn], out[kOut];
        for (int i = 0; i < kIn; ++i) col[i] = _mm512_loadu_ps(m + (i * kIn + j) * stride + o);
        output_transform_1d(col, out);
        for (int i = 0; i < kOut; ++i) r[i][j] = out[i];
      }
      const __m512 b = _mm512_loadu_ps(bias_.data() + o);
      for (int64_t i = 0; i < rows; ++i) {
        __m512 out[kOut];
        output_transform_1d(r[i], out);
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t at = ((n * oh + ty * kOut + i) * ow + tx * kOut + j) * o_ + o;
          __m512 val = _mm512_add_ps(out[j], b);
          if (z) val = _mm512_add_ps(val, _mm512_maskz_loadu_ps(mask, z + at));
          _mm512_mask_storeu_ps(y + at, mask, activate(val, act_));
        }
      }
    }
  }

  ConvGeometry g_;
  Activation act_;
  bool with_sum_;
  int64_t c_ = 0, o_ = 0, c_padded_ = 0, o_padded_ = 0, tiles_h_ = 0, tiles_w_ = 0, group_ = 1;
  std::shared_ptr<const Transformed> u_;  // shared by the kernels of one op (backends/cpu/kernels/weight_cache.h)
  AlignedVector<float> bias_;
};

}  // namespace

std::unique_ptr<ConvKernel> make_winograd_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                      const Activation& act, bool with_sum, Precision precision,
                                                      WeightCache* cache) {
  if (precision == Precision::kBFloat16 && !bf16_kernels_available()) return nullptr;
  if (!avx512_kernels_available() || !vector_activation_supported(act) || g.kernel.size() != 2 || g.groups != 1 ||
      !g.channels_last || g.input_channels_first)
    return nullptr;
  for (size_t i = 0; i < 2; ++i)
    if (g.kernel[i] != 3 || g.strides[i] != 1 || g.dilations[i] != 1 || g.pads_begin[i] > 2 || g.pads_end[i] > 2)
      return nullptr;
  if (g.batch <= 0 || g.out[0] <= 0 || g.out[1] <= 0 || g.in_channels <= 0 || g.out_channels <= 0) return nullptr;
  if (precision == Precision::kBFloat16)
    return std::make_unique<WinogradConvKernel<true> >(g, weights, bias, act, with_sum, cache);
  return std::make_unique<WinogradConvKernel<false> >(g, weights, bias, act, with_sum, cache);
}

#endif

}  // namespace hi::cpu
