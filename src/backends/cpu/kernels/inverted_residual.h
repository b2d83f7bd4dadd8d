// A MobileNet-style inverted residual block in one kernel: an optional pointwise (1x1) expansion,
// a depthwise convolution and a pointwise projection with an optional residual, float32 (the
// pointwise products optionally bfloat16), all tensors channels-last. Run separately, the three
// convolutions write the expanded tensor (6x the block's input) to memory and read it back twice;
// here the block walks the image in strips of output rows and keeps each strip's expanded rows in
// a per-thread buffer that stays in the cache.
// AVX-512 only: where the CPU lacks it the kernel is not made and the graph keeps three FusedConvs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {

struct InvertedResidualGeometry {
  int64_t batch = 0, height = 0, width = 0;  // input X [batch, height, width, in_channels]
  int64_t in_channels = 0, hidden = 0, out_channels = 0;
  bool expand = true;  // false: the depthwise reads X (hidden == in_channels)
  int64_t kernel_h = 3, kernel_w = 3, stride_h = 1, stride_w = 1;
  int64_t pad_top = 1, pad_left = 1;  // the bottom/right pads follow from out_height/out_width
  int64_t out_height = 0, out_width = 0;
  bool residual = false;  // Z is given: the projection adds it
  // The two pointwise products in bfloat16 (inputs and weights rounded, float32 sums), where the
  // CPU has AVX512_BF16; the depthwise convolution and the expanded rows stay float32.
  bool bf16 = false;
};

struct InvertedResidualWeights {
  const float* expand_w = nullptr;     // [hidden, in_channels] (ONNX [M, C, 1, 1]); null without expansion
  const float* expand_b = nullptr;     // [hidden] or null
  const float* depthwise_w = nullptr;  // [hidden, kernel_h, kernel_w] (ONNX [M, 1, kh, kw])
  const float* depthwise_b = nullptr;  // [hidden] or null
  const float* project_w = nullptr;    // [out_channels, hidden]
  const float* project_b = nullptr;    // [out_channels] or null
  Activation expand_act, depthwise_act, project_act;
  WeightCache* cache = nullptr;  // the op's packed weights, shared by its kernels for other shapes; may be null
};

class InvertedResidualKernel {
 public:
  virtual ~InvertedResidualKernel() = default;
  // y = project(depthwise(expand(x))) + z; z may be null. May be called from several threads.
  virtual void run(const float* x, const float* z, float* y) const = 0;
  virtual std::string describe() const = 0;  // for profiles
};

// True when this CPU runs the kernel (AVX-512F) and it handles `act` (none, Relu, Clip).
bool inverted_residual_available();
bool inverted_residual_activation_supported(const Activation& act);
// The block's kernel: the fused strip walk or, where it is made too, the chain below, whichever
// times faster (once per geometry for the process). nullptr when the CPU lacks AVX-512, an
// activation is not supported or the geometry is empty. Packs the weights.
std::unique_ptr<InvertedResidualKernel> make_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                      const InvertedResidualWeights& w);
// The fused strip walk alone (backends/cpu/kernels/inverted_residual.cc), with the same conditions.
std::unique_ptr<InvertedResidualKernel> make_fused_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                            const InvertedResidualWeights& w);
// The block as three convolutions on make_conv_kernel's kernels (backends/cpu/kernels/inverted_residual_chain.cc);
// nullptr where one of them is not made (no oneDNN) or its buffers would pass 12 MiB.
std::unique_ptr<InvertedResidualKernel> make_chained_inverted_residual_kernel(const InvertedResidualGeometry& g,
                                                                              const InvertedResidualWeights& w);

}  // namespace hi::cpu
