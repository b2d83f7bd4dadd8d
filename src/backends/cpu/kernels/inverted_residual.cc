// The fused inverted residual block (see inverted_residual.h). Layout of the work:
//   - the output rows of each image are cut into bands, one or more per image so that every
//     thread has an equal share (or, for small images at batch 1, the hidden channels are shared
//     out instead: see choose_schedule); each band is walked a few output rows at a time;
//   - per group of rows: the expansion writes the input rows the group needs and the previous
//     group did not already expand into the thread's buffer E ([rows, W, hidden] with hidden
//     padded to 16), the depthwise convolution turns them into the group's rows in buffer D
//     ([rows, OW, hidden]), and the projection writes Y from D;
//   - both pointwise convolutions are packed_gemm products (backends/cpu/kernels/packed_gemm.h) over weights
//     packed once; with bf16 the packed_gemm_bf16 products (backends/cpu/kernels/packed_gemm_bf16.h), their A
//     (X's rows, D) rounded to bfloat16 into a per-thread buffer just before each product.
#include "backends/cpu/kernels/inverted_residual.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/fastest.h"
#include "backends/cpu/kernels/packed_gemm.h"
#include "backends/cpu/kernels/packed_gemm_bf16.h"
#include "core/threading.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {

bool inverted_residual_activation_supported(const Activation& act) { return vector_activation_supported(act); }

#ifndef HI_HAVE_AVX512_KERNELS

bool inverted_residual_available() { return false; }
std::unique_ptr<InvertedResidualKernel> make_inverted_residual_kernel(const InvertedResidualGeometry&,
                                                                      const InvertedResidualWeights&) {
  return nullptr;
}
std::unique_ptr<InvertedResidualKernel> make_fused_inverted_residual_kernel(const InvertedResidualGeometry&,
                                                                            const InvertedResidualWeights&) {
  return nullptr;
}

#else

bool inverted_residual_available() { return avx512_kernels_available(); }

namespace {

class AvxInvertedResidual final : public InvertedResidualKernel {
 public:
  std::string describe() const override {
    return bf16_ ? "hipinfer fused inverted residual (AVX-512, bf16 products)"
                 : "hipinfer fused inverted residual (AVX-512)";
  }
  AvxInvertedResidual(const InvertedResidualGeometry& g, const InvertedResidualWeights& w) : g_(g) {
    hidden_padded_ = round_up(g.hidden, kLanes);
    bf16_ = g.bf16 && bf16_kernels_available();
    auto pack_rows = [&](const char* name, const float* weights, const float* bias, int64_t n, int64_t k,
                         int64_t k_padded) {
      const std::string key = std::string(name) + " " + std::to_string(n) + "x" + std::to_string(k_padded) + " bias " +
                              std::to_string(reinterpret_cast<uintptr_t>(bias));
      return packed_weights<PackedWeights>(w.cache, weights, key, [&] {
        PackedWeights packed;
        packed.pack_rows(weights, bias, n, k, k_padded);
        return packed;
      });
    };
    // [n][k] weights (ONNX [M, C, 1, 1]) as k pairs for the bfloat16 product.
    auto pack_bf16 = [&](const char* name, const float* weights, const float* bias, int64_t n, int64_t k) {
      const std::string key = std::string(name) + " " + std::to_string(n) + "x" + std::to_string(k) + " bias " +
                              std::to_string(reinterpret_cast<uintptr_t>(bias));
      return packed_weights<PackedWeightsBf16>(w.cache, weights, key, [&] {
        PackedWeightsBf16 packed;
        packed.pack(weights, k, n, 1, k, bias);
        return packed;
      });
    };
    if (bf16_) {
      if (g.expand) expand16_ = pack_bf16("ir-expand-bf16", w.expand_w, w.expand_b, g.hidden, g.in_channels);
      project16_ = pack_bf16("ir-project-bf16", w.project_w, w.project_b, g.out_channels, g.hidden);
    } else {
      if (g.expand) expand_ = pack_rows("ir-expand", w.expand_w, w.expand_b, g.hidden, g.in_channels, g.in_channels);
      project_ = pack_rows("ir-project", w.project_w, w.project_b, g.out_channels, g.hidden, hidden_padded_);
    }
    const int64_t taps = g.kernel_h * g.kernel_w;
    depthwise_w_.assign(static_cast<size_t>(taps * hidden_padded_), 0.f);
    depthwise_b_.assign(static_cast<size_t>(hidden_padded_), 0.f);
    for (int64_t ch = 0; ch < g.hidden; ++ch) {
      for (int64_t t = 0; t < taps; ++t)
        depthwise_w_[static_cast<size_t>(t * hidden_padded_ + ch)] = w.depthwise_w[ch * taps + t];
      if (w.depthwise_b) depthwise_b_[static_cast<size_t>(ch)] = w.depthwise_b[ch];
    }
    acts_ = {w.expand_act, w.depthwise_act, w.project_act};
    // X can be read in place of E when there is no expansion and no channel padding to add.
    read_x_directly_ = !g.expand && g.in_channels == hidden_padded_;
    choose_schedule();
  }

  void run(const float* x, const float* z, float* y) const override {
    const int64_t tasks = g_.batch * bands_ * parts_;
    const int threads = static_cast<int>(std::min<int64_t>(current_threads(), tasks));
    RegionLoad* load = current_region_load();
    const int64_t start_ns = load ? steady_ns() : 0;
    if (parts_ == 1) {
#pragma omp parallel num_threads(threads) if (threads > 1)
      {
        if (omp_get_thread_num() > 0) note_helper_start(load, start_ns);
#pragma omp for schedule(static)
        for (int64_t task = 0; task < tasks; ++task) run_band(x, z, y, task / bands_, task % bands_, 0, nullptr);
      }
      if (threads > 1) note_region(load);
      return;
    }
    // Parts: every thread filters its hidden channels of the whole batch into one shared D, then
    // (after the barrier that ends the first loop) projects its share of D's pixels.
    const int64_t pixels = g_.batch * g_.out_height * g_.out_width;
    thread_local AlignedVector<float> d_all;
    d_all.resize(static_cast<size_t>(pixels * hidden_padded_));
    float* d = d_all.data();
    const int64_t chunks = std::min<int64_t>(threads, pixels);
#pragma omp parallel num_threads(threads)
    {
      if (omp_get_thread_num() > 0) note_helper_start(load, start_ns);
#pragma omp for schedule(static)
      for (int64_t task = 0; task < tasks; ++task) run_band(x, nullptr, nullptr, task / parts_, 0, task % parts_, d);
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t m0 = pixels * c / chunks, m1 = pixels * (c + 1) / chunks;
        project_rows(d + m0 * hidden_padded_, hidden_padded_, m1 - m0, y + m0 * g_.out_channels,
                     z ? z + m0 * g_.out_channels : nullptr);
      }
    }
    note_region(load);
  }

 private:
  // Bands: each image's output rows are cut into as few bands as give every thread an equal
  // share; a band boundary expands the rows both bands read twice. Bands shorter than 8 rows
  // (small images at batch 1) repeat too much of that and share the rows unevenly (7 rows: 3
  // and 4), so there the threads share the hidden channels instead (parts): each expands and
  // filters its channels of the whole image, and the projection follows over all channels, its
  // pixels shared out. (Measured on MobileNetV2's blocks at batch 1, two threads: parts 15 %
  // faster at 7x7, even at 14x14, 10 % slower at 28x28.) Groups: a band is walked a few
  // output rows at a time, as many as keep the expanded rows they read within about 256 KiB.
  void choose_schedule() {
    const int64_t threads = current_threads();
    bands_ = 1;
    while (bands_ < g_.out_height && (g_.batch * bands_) % threads != 0 && g_.batch * bands_ < 4 * threads) ++bands_;
    if (bands_ > 1 && g_.out_height < 8 * bands_ && hidden_padded_ / kLanes >= 2 * bands_) {
      parts_ = bands_;
      bands_ = 1;
    }
    part_width_ = round_up(hidden_padded_ / parts_, kLanes);
    const int64_t row_bytes = g_.width * part_width_ * static_cast<int64_t>(sizeof(float));
    const int64_t budget_rows = std::max<int64_t>(g_.kernel_h, (256 << 10) / std::max<int64_t>(1, row_bytes));
    group_rows_ = std::clamp<int64_t>((budget_rows - g_.kernel_h) / g_.stride_h + 1, 1, g_.out_height);
    e_rows_ = std::min(g_.height, (group_rows_ - 1) * g_.stride_h + g_.kernel_h);
  }
  int64_t band_begin(int64_t band) const { return g_.out_height * band / bands_; }
  // Hidden channels [part_begin(p), part_begin(p + 1)) of a part, whole vectors.
  int64_t part_begin(int64_t part) const { return std::min(hidden_padded_, part * part_width_); }
  // Input rows [first, last) that output rows [oy0, oy1) read, clipped to the image.
  int64_t first_input_row(int64_t oy0) const {
    return std::clamp<int64_t>(oy0 * g_.stride_h - g_.pad_top, 0, g_.height);
  }
  int64_t end_input_row(int64_t oy1) const {
    return std::clamp<int64_t>((oy1 - 1) * g_.stride_h - g_.pad_top + g_.kernel_h, 0, g_.height);
  }

  // Hidden channels [c0, c0 + width) of the expanded input rows [from, to) into e (row `from` first).
  void fill_rows(const float* xi, int64_t from, int64_t to, int64_t c0, int64_t width, float* e) const {
    const int64_t w = g_.width;
    const float* xr = xi + from * w * g_.in_channels;
    if (g_.expand && bf16_) {
      const int64_t rows = (to - from) * w, lda = round_up(g_.in_channels, 2);
      uint16_t* a = bf16_rows(rows * lda);
      convert_rows_to_bf16(xr, g_.in_channels, rows, g_.in_channels, a, lda);
      packed_gemm_bf16(a, lda, rows, expand16_->slice(c0 / kLanes), width, e, width, nullptr, 0, acts_[0]);
      return;
    }
    if (g_.expand) {
      packed_gemm(xr, g_.in_channels, (to - from) * w, expand_->slice(c0 / kLanes), width, e, width, nullptr, 0,
                  acts_[0]);
      return;
    }
    const int64_t copied = std::clamp<int64_t>(g_.in_channels - c0, 0, width);
    for (int64_t p = 0; p < (to - from) * w; ++p) {
      std::memcpy(e + p * width, xr + p * g_.in_channels + c0, static_cast<size_t>(copied) * sizeof(float));
      std::fill(e + p * width + copied, e + (p + 1) * width, 0.f);
    }
  }

  // One band's output rows for one part's hidden channels. With d_all null (bands): Y from
  // each group's D. Otherwise (parts): D's rows into d_all, whose pixels are hidden_padded_ apart.
  HI_AVX512 void run_band(const float* x, const float* z, float* y, int64_t image, int64_t band, int64_t part,
                          float* d_all) const {
    const int64_t w = g_.width, ow = g_.out_width;
    const int64_t c0 = part_begin(part), width = part_begin(part + 1) - c0;
    const float* xi = x + image * g_.height * w * g_.in_channels;
    thread_local AlignedVector<float> e_buf, d_buf;
    if (!read_x_directly_) e_buf.resize(static_cast<size_t>(e_rows_ * w * width));
    if (!d_all) d_buf.resize(static_cast<size_t>(group_rows_ * ow * width));
    int64_t have0 = 0, have1 = 0;  // input rows e_buf holds, from its start
    for (int64_t oy0 = band_begin(band), end = band_begin(band + 1); oy0 < end; oy0 += group_rows_) {
      const int64_t oy1 = std::min(end, oy0 + group_rows_);
      const float* e = xi + c0;
      int64_t e_row0 = 0, e_stride = g_.in_channels;
      if (!read_x_directly_) {
        // Rows the previous group expanded and this one reads again move to the buffer's start.
        const int64_t need0 = first_input_row(oy0), need1 = end_input_row(oy1);
        int64_t next = need0;
        if (have0 <= need0 && need0 < have1) {
          next = std::min(have1, need1);
          std::memmove(e_buf.data(), e_buf.data() + (need0 - have0) * w * width,
                       static_cast<size_t>((next - need0) * w * width) * sizeof(float));
        }
        if (next < need1) fill_rows(xi, next, need1, c0, width, e_buf.data() + (next - need0) * w * width);
        have0 = need0;
        have1 = need1;
        e = e_buf.data();
        e_row0 = need0;
        e_stride = width;
      }
      const int64_t first = (image * g_.out_height + oy0) * ow;  // the group's first output pixel
      if (d_all) {
        for (int64_t oy = oy0; oy < oy1; ++oy)
          depthwise_row(e, e_row0, e_stride, oy, c0, width, d_all + (first + (oy - oy0) * ow) * hidden_padded_ + c0,
                        hidden_padded_);
        continue;
      }
      for (int64_t oy = oy0; oy < oy1; ++oy)
        depthwise_row(e, e_row0, e_stride, oy, c0, width, d_buf.data() + (oy - oy0) * ow * width, width);
      project_rows(d_buf.data(), width, (oy1 - oy0) * ow, y + first * g_.out_channels,
                   z ? z + first * g_.out_channels : nullptr);
    }
  }

  // Y's rows [0, rows) (and Z's) = act(D W + b (+ Z)) from D's rows, lda floats apart (every
  // hidden channel: lda is hidden_padded_ or, with one part, the part's width, the same).
  void project_rows(const float* d, int64_t lda, int64_t rows, float* y, const float* z) const {
    if (!bf16_) {
      packed_gemm(d, lda, rows, project_->slice(0), g_.out_channels, y, g_.out_channels, z, g_.out_channels, acts_[2]);
      return;
    }
    uint16_t* a = bf16_rows(rows * lda);  // lda is a multiple of 16: even, as the product needs
    convert_rows_to_bf16(d, lda, rows, g_.hidden, a, lda);
    packed_gemm_bf16(a, lda, rows, project16_->slice(0), g_.out_channels, y, g_.out_channels, z, g_.out_channels,
                     acts_[2]);
  }

  // The calling thread's buffer for `count` bfloat16 values (one product's A at a time).
  static uint16_t* bf16_rows(int64_t count) {
    thread_local AlignedVector<uint16_t> buffer;
    if (buffer.size() < static_cast<size_t>(count)) buffer.resize(static_cast<size_t>(count));
    return buffer.data();
  }

  // One output row of the depthwise convolution for hidden channels [c0, c0 + hp): d[ox, :]
  // (ds floats a pixel) from the input rows held in e (row e_row0 first, es floats a pixel, the
  // part's first channel first). Taps outside the image are skipped (zero padding). Columns
  // whose taps are all inside go four at a time, each tap's weights loaded once for the four.
  HI_AVX512 void depthwise_row(const float* e, int64_t e_row0, int64_t es, int64_t oy, int64_t c0, int64_t hp, float* d,
                               int64_t ds) const {
    const int64_t w = g_.width, kw = g_.kernel_w, sw = g_.stride_w, ws = hidden_padded_;
    const float* wd = depthwise_w_.data() + c0;
    const float* bd = depthwise_b_.data() + c0;
    const int64_t iy_first = oy * g_.stride_h - g_.pad_top;
    const int64_t ky0 = std::max<int64_t>(0, -iy_first), ky1 = std::min(g_.kernel_h, g_.height - iy_first);
    const float* rows = e + (iy_first - e_row0) * w * es;  // the row of tap ky = 0 (may lie outside e)
    // Interior columns [inner0, inner1): ix_first >= 0 and ix_first + kw <= w.
    const int64_t inner0 = std::min(g_.out_width, (g_.pad_left + sw - 1) / sw);
    const int64_t inner1 = std::max(inner0, std::min(g_.out_width, (w - kw + g_.pad_left) / sw + 1));
    const Activation act = acts_[1];
    auto edge_column = [&](int64_t ox) HI_AVX512 {
      const int64_t ix_first = ox * sw - g_.pad_left;
      const int64_t kx0 = std::max<int64_t>(0, -ix_first), kx1 = std::min(kw, w - ix_first);
      for (int64_t c = 0; c < hp; c += kLanes) {
        __m512 acc = _mm512_loadu_ps(bd + c);
        for (int64_t ky = ky0; ky < ky1; ++ky)
          for (int64_t kx = kx0; kx < kx1; ++kx)
            acc = _mm512_fmadd_ps(_mm512_loadu_ps(rows + (ky * w + ix_first + kx) * es + c),
                                  _mm512_loadu_ps(wd + (ky * kw + kx) * ws + c), acc);
        _mm512_storeu_ps(d + ox * ds + c, activate(acc, act));
      }
    };
    for (int64_t ox = 0; ox < inner0; ++ox) edge_column(ox);
    // Four columns at a time, every channel of them before the next four: each pixel's channels
    // are read while its cache lines are at hand.
    int64_t ox = inner0;
    for (; ox + 4 <= inner1; ox += 4) {
      for (int64_t c = 0; c < hp; c += kLanes) {
        const __m512 bias = _mm512_loadu_ps(bd + c);
        __m512 acc[4] = {bias, bias, bias, bias};
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const float* in = rows + (ky * w + ox * sw - g_.pad_left) * es + c;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const __m512 wv = _mm512_loadu_ps(wd + (ky * kw + kx) * ws + c);
#pragma GCC unroll 4
            for (int u = 0; u < 4; ++u) acc[u] = _mm512_fmadd_ps(_mm512_loadu_ps(in + (u * sw + kx) * es), wv, acc[u]);
          }
        }
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) _mm512_storeu_ps(d + (ox + u) * ds + c, activate(acc[u], act));
      }
    }
    for (; ox < inner1; ++ox) {
      for (int64_t c = 0; c < hp; c += kLanes) {
        __m512 acc = _mm512_loadu_ps(bd + c);
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const float* in = rows + (ky * w + ox * sw - g_.pad_left) * es + c;
          for (int64_t kx = 0; kx < kw; ++kx)
            acc = _mm512_fmadd_ps(_mm512_loadu_ps(in + kx * es), _mm512_loadu_ps(wd + (ky * kw + kx) * ws + c), acc);
        }
        _mm512_storeu_ps(d + ox * ds + c, activate(acc, act));
      }
    }
    for (int64_t ox = inner1; ox < g_.out_width; ++ox) edge_column(ox);
  }

  InvertedResidualGeometry g_;
  int64_t hidden_padded_ = 0, bands_ = 1, parts_ = 1, part_width_ = 0, group_rows_ = 1, e_rows_ = 1;
  bool read_x_directly_ = false, bf16_ = false;
  std::shared_ptr<const PackedWeights> expand_, project_;          // shared by the op's kernels (weight_cache.h)
  std::shared_ptr<const PackedWeightsBf16> expand16_, project16_;  // with bf16_, instead
  AlignedVector<float> depthwise_w_, depthwise_b_;                 // [taps, hidden_padded], [hidden_padded]
  std::array<Activation, 3> acts_;
};

}  // namespace

std::unique_ptr<InvertedResidualKernel> make_fused_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                            const InvertedResidualWeights& w) {
  if (!inverted_residual_available()) return nullptr;
  for (const Activation* a : {&w.expand_act, &w.depthwise_act, &w.project_act})
    if (!inverted_residual_activation_supported(*a)) return nullptr;
  if (g.batch <= 0 || g.height <= 0 || g.width <= 0 || g.out_height <= 0 || g.out_width <= 0 || g.hidden <= 0 ||
      g.out_channels <= 0 || (!g.expand && g.hidden != g.in_channels))
    return nullptr;
  return std::make_unique<AvxInvertedResidual>(g, w);
}

std::unique_ptr<InvertedResidualKernel> make_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                      const InvertedResidualWeights& w) {
  // Fused or chained, whichever times faster, remembered per geometry for the process (a
  // MobileNet repeats block shapes; past a few image sizes, not timed: backends/cpu/kernels/fastest.h). A
  // remembered winner is the only kernel made.
  static KernelChoices choices("inverted_residual");  // 1: chained won
  std::string family;
  for (int64_t v : {g.in_channels, g.hidden, g.out_channels, int64_t{g.expand}, g.kernel_h, g.kernel_w, g.stride_h,
                    g.stride_w, g.pad_top, g.pad_left, int64_t{g.residual}, int64_t{g.bf16}})
    family += std::to_string(v) + ",";
  for (const Activation* a : {&w.expand_act, &w.depthwise_act, &w.project_act}) family += a->name() + ",";
  const std::vector<int64_t> size = {g.batch, g.height, g.width, g.out_height, g.out_width};
  const double work = static_cast<double>(g.batch * g.out_height * g.out_width);
  const int known = choices.find(family, size, work);
  if (known == 1)
    if (auto chained = make_chained_inverted_residual_kernel(g, w)) return chained;
  std::unique_ptr<InvertedResidualKernel> fused = make_fused_inverted_residual_kernel(g, w);
  // Untimed, the fused kernel: it won about half of MobileNetV2's blocks and needs no second copy.
  if (!fused || known >= 0 || !time_new_shapes()) return fused;
  std::unique_ptr<InvertedResidualKernel> chained = make_chained_inverted_residual_kernel(g, w);
  if (!chained) return fused;
  const size_t in = static_cast<size_t>(g.batch * g.height * g.width * g.in_channels);
  const size_t out = static_cast<size_t>(g.batch * g.out_height * g.out_width * g.out_channels);
  const bool chain_faster = fastest_on_zeros<InvertedResidualKernel>({fused.get(), chained.get()}, in, out) == 1;
  choices.remember(family, size, work, chain_faster ? 1 : 0);
  return chain_faster ? std::move(chained) : std::move(fused);
}

#endif

}  // namespace hi::cpu
