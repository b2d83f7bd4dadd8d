// What the passes may assume of the device a session compiles for. The session fills it in from
// the backend that runs the nodes, so the passes never include a backend to ask it themselves.
#pragma once

#include <set>

#include "core/activation.h"

namespace hi::passes {

struct Target {
  // Fast channels-last convolutions (the CPU backend with oneDNN): the channels-last layout and
  // the fusions made for it run. False for GPUs, whose kernels read NCHW.
  bool channels_last_convolutions = false;
  // A fused int8 convolution (QLinearConv with its requantisation) for fuse_qdq_conv.
  bool int8_convolutions = false;
  // A fused inverted residual block (expand, depthwise, project) for fuse_inverted_residual,
  // and the activations it computes between the three.
  bool inverted_residual = false;
  std::set<Activation::Kind> inverted_residual_activations;
};

}  // namespace hi::passes
