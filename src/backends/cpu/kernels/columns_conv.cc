// A convolution as one matrix product per image over its patches (im2col). Channels-first, the
// patches are rows (c, ky, kx) with one column per output position, and y[o][p] = w[o][:] .
// cols[:][p] with the weights in ONNX's own [O][C kh kw] order; channels-last, each output
// position's patch is a row (ky, kx, c) and y[p][o] = cols[p][:] . w'[o][:] with the weights
// reordered to [O][kh kw C]. For shapes oneDNN's direct kernels handle badly, such as tall
// 1-D-like convolutions (kernel 5x1 over a 512x1 map with 256 channels in Magika's file-type
// model, where oneDNN 2.6 took 11 ms and this 3.7). One group, float32, 2-D;
// make_conv_kernel times it against the rest.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/weight_cache.h"
#include "hipinfer/tensor.h"
#include "core/threading.h"

namespace hi::cpu {
namespace {

class ColumnsConvKernel final : public ConvKernel {
 public:
  ColumnsConvKernel(const ConvGeometry& g, const float* weights, const float* bias, const Activation& act,
                    bool with_sum, WeightCache* cache)
      : g_(g), act_(act), with_sum_(with_sum) {
    taps_ = g.in_channels * g.kernel[0] * g.kernel[1];
    positions_ = g.out[0] * g.out[1];
    // The weights in the order the product reads them, one copy for the op's kernels of all sizes.
    const int64_t c_in = g.in_channels, window = g.kernel[0] * g.kernel[1], taps = taps_, n = g.out_channels;
    const bool rows = g.channels_last;
    w_ = packed_weights<std::vector<float>>(
        cache, weights, std::string("columns ") + (rows ? "[O][kh kw C] " : "[O][C kh kw] ") + std::to_string(taps),
        [&] {
          if (!rows) return std::vector<float>(weights, weights + n * taps);
          std::vector<float> w(static_cast<size_t>(n * taps));
          for (int64_t o = 0; o < n; ++o)
            for (int64_t c = 0; c < c_in; ++c)
              for (int64_t k = 0; k < window; ++k)
                w[static_cast<size_t>(o * taps + k * c_in + c)] = weights[(o * c_in + c) * window + k];
          return w;
        });
    if (bias) b_.assign(bias, bias + g.out_channels);
    // A 1x1 convolution with stride 1 and no padding reads its input as the columns directly.
    direct_ = !g.input_channels_first && g.kernel[0] == 1 && g.kernel[1] == 1 && g.strides[0] == 1 &&
              g.strides[1] == 1 && g.pads_begin[0] == 0 && g.pads_begin[1] == 0 && g.pads_end[0] == 0 &&
              g.pads_end[1] == 0;
  }

  Status run(const float* x, const float* sum, float* y) const override {
    const int64_t in_plane = g_.in_channels * g_.in[0] * g_.in[1], out_plane = g_.out_channels * positions_;
    // The patches of one image: a counted host tensor (a block of 1 MiB or more comes from the
    // process's free-block cache, so a run of the same shape reuses it), freed after the run
    // rather than kept per thread at the largest size ever timed.
    Tensor cols;
    if (!direct_) cols = Tensor::empty(DType::kFloat32, {taps_ * positions_});
    for (int64_t n = 0; n < g_.batch; ++n) {
      const float* image = x + n * in_plane;
      if (!direct_ && g_.channels_last) to_patch_rows(image, cols.data<float>());
      else if (!direct_) to_columns(image, cols.data<float>());
      float* out = y + n * out_plane;
      const float* patches = direct_ ? image : cols.data<float>();
      if (g_.channels_last)
        sgemm(false, true, positions_, g_.out_channels, taps_, 1.f, patches, taps_, w_->data(), taps_, 0.f, out,
              g_.out_channels);
      else
        sgemm(false, false, g_.out_channels, positions_, taps_, 1.f, w_->data(), taps_, patches, positions_, 0.f, out,
              positions_);
      epilogue(with_sum_ && sum ? sum + n * out_plane : nullptr, out);
    }
    return Status::ok();
  }

  std::string describe() const override { return "hipinfer im2col + sgemm convolution"; }

 private:
  // cols[(c, ky, kx)][oy * OW + ox] = x[c][oy * sy - py + ky * dy][ox * sx - px + kx * dx], 0 outside.
  void to_columns(const float* image, float* cols) const {
    const int64_t kh = g_.kernel[0], kw = g_.kernel[1], ih = g_.in[0], iw = g_.in[1];
    const int64_t oh = g_.out[0], ow = g_.out[1];
    parallel_for(taps_, 16, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t c = t / (kh * kw), ky = t / kw % kh, kx = t % kw;
        const float* plane = image + c * ih * iw;
        float* row = cols + t * positions_;
        for (int64_t oy = 0; oy < oh; ++oy) {
          const int64_t iy = oy * g_.strides[0] - g_.pads_begin[0] + ky * g_.dilations[0];
          float* dst = row + oy * ow;
          if (iy < 0 || iy >= ih) {
            std::fill(dst, dst + ow, 0.f);
            continue;
          }
          for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t ix = ox * g_.strides[1] - g_.pads_begin[1] + kx * g_.dilations[1];
            dst[ox] = ix >= 0 && ix < iw ? plane[iy * iw + ix] : 0.f;
          }
        }
      }
    });
  }

  // rows[oy * OW + ox][(ky, kx, c)] = x at (iy, ix, c), 0 outside; the input channels-last, or
  // channels-first where a network's first layer reads the image as fed.
  void to_patch_rows(const float* image, float* rows) const {
    const int64_t kh = g_.kernel[0], kw = g_.kernel[1], ih = g_.in[0], iw = g_.in[1], c_in = g_.in_channels;
    const int64_t ow = g_.out[1];
    parallel_for(positions_, 16, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t oy = p / ow, ox = p % ow;
        float* row = rows + p * taps_;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t iy = oy * g_.strides[0] - g_.pads_begin[0] + ky * g_.dilations[0];
            const int64_t ix = ox * g_.strides[1] - g_.pads_begin[1] + kx * g_.dilations[1];
            float* dst = row + (ky * kw + kx) * c_in;
            if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) {
              std::fill(dst, dst + c_in, 0.f);
            } else if (g_.input_channels_first) {
              for (int64_t c = 0; c < c_in; ++c) dst[c] = image[(c * ih + iy) * iw + ix];
            } else {
              std::copy_n(image + (iy * iw + ix) * c_in, c_in, dst);
            }
          }
      }
    });
  }

  // y = act(y + bias + sum).
  void epilogue(const float* sum, float* y) const {
    if (b_.empty() && !sum && act_.kind == Activation::Kind::kNone) return;
    if (g_.channels_last) {
      parallel_for(positions_, 16, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p)
          for (int64_t o = 0; o < g_.out_channels; ++o) {
            const int64_t at = p * g_.out_channels + o;
            const float v = y[at] + (b_.empty() ? 0.f : b_[static_cast<size_t>(o)]) + (sum ? sum[at] : 0.f);
            y[at] = act_.kind == Activation::Kind::kNone ? v : act_.apply(v);
          }
      });
      return;
    }
    parallel_for(g_.out_channels, 4, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        float* row = y + o * positions_;
        const float* z = sum ? sum + o * positions_ : nullptr;
        const float bias = b_.empty() ? 0.f : b_[static_cast<size_t>(o)];
        for (int64_t p = 0; p < positions_; ++p) {
          const float v = row[p] + bias + (z ? z[p] : 0.f);
          row[p] = act_.kind == Activation::Kind::kNone ? v : act_.apply(v);
        }
      }
    });
  }

  ConvGeometry g_;
  Activation act_;
  bool with_sum_ = false, direct_ = false;
  int64_t taps_ = 0, positions_ = 0;
  std::shared_ptr<const std::vector<float>> w_;  // shared by the op's kernels (weight_cache.h)
  std::vector<float> b_;
};

}  // namespace

std::unique_ptr<ConvKernel> make_columns_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                     const Activation& act, bool with_sum, WeightCache* cache) {
  if (g.in.size() != 2 || g.groups != 1 || g.batch < 1) return nullptr;
  return std::make_unique<ColumnsConvKernel>(g, weights, bias, act, with_sum, cache);
}

}  // namespace hi::cpu
