// Shared by the CPU kernel tests: random data and a channels-last 2-D convolution geometry.
#pragma once

#include <random>
#include <vector>

#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {

inline std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

// A 2-D convolution with a kh x kw kernel and stride `stride`; pads {top, left, bottom, right};
// output size from those. Channels-last, reading channels-last unless `input_channels_first`.
inline ConvGeometry conv_geometry(int64_t batch, int64_t channels, int64_t out_channels, int64_t h, int64_t w,
                                  int64_t kh, int64_t kw, int64_t stride, const std::vector<int64_t>& pads,
                                  bool input_channels_first = false) {
  ConvGeometry g;
  g.batch = batch;
  g.in_channels = channels;
  g.out_channels = out_channels;
  g.in = {h, w};
  g.kernel = {kh, kw};
  g.strides = {stride, stride};
  g.dilations = {1, 1};
  g.pads_begin = {pads[0], pads[1]};
  g.pads_end = {pads[2], pads[3]};
  g.out = {(h + pads[0] + pads[2] - kh) / stride + 1, (w + pads[1] + pads[3] - kw) / stride + 1};
  g.channels_last = true;
  g.input_channels_first = input_channels_first;
  return g;
}

}  // namespace hi::cpu
