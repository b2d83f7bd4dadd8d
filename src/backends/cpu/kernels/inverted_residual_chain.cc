// The inverted residual block as three convolutions (see inverted_residual.h): expansion,
// depthwise and projection each on make_conv_kernel's kernel for its shape, the expanded and
// filtered tensors in a buffer of the calling thread. Where the block's tensors are small (late,
// narrow blocks: 28x28 and below at batch 8 on an Intel Xeon, where it ran 11-15 % faster) the
// strip walk's cache saving is worth less than oneDNN's tuned kernels; make_inverted_residual_kernel
// times the two and keeps the faster.
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/kernels/inverted_residual.h"

#include "backends/cpu/kernels/aligned.h"
#include "backends/cpu/kernels/avx512_util.h"

namespace hi::cpu {
namespace {

// The buffers grow to the largest chained block a thread runs and stay: blocks whose expanded
// and filtered tensors together pass this are left to the fused kernel.
constexpr int64_t kMaxBufferFloats = int64_t{3} << 20;  // 12 MiB

class ChainedInvertedResidual final : public InvertedResidualKernel {
 public:
  ChainedInvertedResidual(const InvertedResidualGeometry& g, std::unique_ptr<ConvKernel> expand,
                          std::unique_ptr<ConvKernel> depthwise, std::unique_ptr<ConvKernel> project)
      : g_(g), expand_(std::move(expand)), depthwise_(std::move(depthwise)), project_(std::move(project)) {}

  void run(const float* x, const float* z, float* y) const override {
    // 64-byte aligned, as the arena's tensors are: oneDNN's kernels ran 1.5x slower on a
    // buffer whose vectors straddle cache lines.
    thread_local AlignedVector<float> buffer;
    const int64_t e = round_up(expanded_floats(g_), 16), d = filtered_floats(g_);
    if (static_cast<int64_t>(buffer.size()) < e + d) buffer.resize(static_cast<size_t>(e + d));
    float* expanded = buffer.data();
    float* filtered = expanded + e;
    // The kernels report only internal errors (a oneDNN failure on a geometry it accepted).
    if (expand_) (void)expand_->run(x, nullptr, expanded);
    (void)depthwise_->run(expand_ ? expanded : x, nullptr, filtered);
    (void)project_->run(filtered, g_.residual ? z : nullptr, y);
  }

  std::string describe() const override {
    return "three convolutions: " + (expand_ ? expand_->describe() + ", " : std::string()) + depthwise_->describe() +
           ", " + project_->describe();
  }

  static int64_t expanded_floats(const InvertedResidualGeometry& g) {
    return g.expand ? g.batch * g.height * g.width * g.hidden : 0;
  }
  static int64_t filtered_floats(const InvertedResidualGeometry& g) {
    return g.batch * g.out_height * g.out_width * g.hidden;
  }

 private:
  InvertedResidualGeometry g_;
  std::unique_ptr<ConvKernel> expand_, depthwise_, project_;
};

// A channels-last 2-D convolution's geometry on the block's batch.
ConvGeometry stage(const InvertedResidualGeometry& g, int64_t in_channels, int64_t out_channels, int64_t groups,
                   std::vector<int64_t> in, std::vector<int64_t> out) {
  ConvGeometry c;
  c.batch = g.batch;
  c.in_channels = in_channels;
  c.out_channels = out_channels;
  c.groups = groups;
  c.in = std::move(in);
  c.out = std::move(out);
  c.kernel = {1, 1};
  c.strides = {1, 1};
  c.dilations = {1, 1};
  c.pads_begin = {0, 0};
  c.pads_end = {0, 0};
  c.channels_last = true;
  return c;
}

}  // namespace

std::unique_ptr<InvertedResidualKernel> make_chained_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                              const InvertedResidualWeights& w) {
  if (ChainedInvertedResidual::expanded_floats(g) + ChainedInvertedResidual::filtered_floats(g) > kMaxBufferFloats)
    return nullptr;
  const int64_t pad_bottom = (g.out_height - 1) * g.stride_h + g.kernel_h - g.height - g.pad_top;
  const int64_t pad_right = (g.out_width - 1) * g.stride_w + g.kernel_w - g.width - g.pad_left;
  if (pad_bottom < 0 || pad_right < 0) return nullptr;
  const Precision precision = g.bf16 ? Precision::kBFloat16 : Precision::kFloat32;
  std::unique_ptr<ConvKernel> expand;
  if (g.expand) {
    expand = make_conv_kernel(stage(g, g.in_channels, g.hidden, 1, {g.height, g.width}, {g.height, g.width}),
                              w.expand_w, w.expand_b, w.expand_act, false, precision, w.cache);
    if (!expand) return nullptr;
  }
  ConvGeometry dw = stage(g, g.hidden, g.hidden, g.hidden, {g.height, g.width}, {g.out_height, g.out_width});
  dw.kernel = {g.kernel_h, g.kernel_w};
  dw.strides = {g.stride_h, g.stride_w};
  dw.pads_begin = {g.pad_top, g.pad_left};
  dw.pads_end = {pad_bottom, pad_right};
  auto depthwise = make_conv_kernel(dw, w.depthwise_w, w.depthwise_b, w.depthwise_act, false, precision, w.cache);
  auto project =
      make_conv_kernel(stage(g, g.hidden, g.out_channels, 1, {g.out_height, g.out_width}, {g.out_height, g.out_width}),
                       w.project_w, w.project_b, w.project_act, g.residual, precision, w.cache);
  if (!depthwise || !project) return nullptr;
  return std::make_unique<ChainedInvertedResidual>(g, std::move(expand), std::move(depthwise), std::move(project));
}

}  // namespace hi::cpu
