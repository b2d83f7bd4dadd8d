// Window geometry shared by Conv, ConvTranspose and the pooling ops: kernel, strides,
// dilations, pads and auto_pad, and the output size they give.
#pragma once

#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "ops/op.h"

namespace hi::ops {

struct WindowParams {
  std::vector<int64_t> kernel;     // spatial kernel size (from attribute or weights)
  std::vector<int64_t> strides;    // default 1
  std::vector<int64_t> dilations;  // default 1
  std::vector<int64_t> pads;       // [begin..., end...]; resolved per input for auto_pad
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;

  // Reads strides, dilations, pads, auto_pad, ceil_mode (kernel_shape if `read_kernel`).
  void parse(InitContext& ctx, bool read_kernel);
  // Fills defaults for `spatial` dims and validates them: lengths, positive kernel, strides and
  // dilations, non-negative pads, and a dilated window whose size fits in int64.
  Status resolve_rank(size_t spatial);
  // The dilated window of spatial dim i, dilation * (kernel - 1) + 1 (after resolve_rank).
  int64_t window(size_t i) const;
  // Pads for one input size (auto_pad SAME_* computes them) and the output size; an error when
  // the window does not fit the padded input (explicit pads, VALID) or a size overflows int64.
  Status output_dims(const std::vector<int64_t>& in, std::vector<int64_t>* pads, std::vector<int64_t>* out) const;
};

}  // namespace hi::ops
