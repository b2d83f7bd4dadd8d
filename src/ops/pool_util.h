// Pooling: the window geometry of MaxPool, AveragePool and LpPool (kernel_shape, strides,
// dilations, pads, auto_pad, ceil_mode; see conv_util.h), output shape inference, and the walk
// over every output position's window.
//
// A window is the product over spatial dims of the positions o * stride - pad_begin + k * dilation,
// k in [0, kernel). Positions outside the input are padding: they never contribute a value, but
// AveragePool with count_include_pad counts those inside the padded input [-pad_begin,
// in + pad_end) (not the extra positions ceil_mode adds past the end), as the ONNX reference does.
#pragma once

#include <vector>

#include "ops/conv_util.h"
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {

// Reads the window attributes; kernel_shape is required and fixes the number of spatial dims.
Status parse_pool_window(InitContext& ctx, WindowParams* w);

// Output dims [N, C, spatial...] of pooling input `x` (rank must be kernel rank + 2; dtype in
// `types`); unknown input dims give unknown output dims.
Result<std::vector<ir::Dim>> infer_pool_dims(const InferContext& ctx, const WindowParams& w, uint64_t types);

// One spatial dim of one output index's window: its taps inside the input are the positions
// first, first + step, ... (count of them; step is the dilation), and `padded` of its taps lie
// inside the padded input. Computed arithmetically, so a huge kernel costs nothing extra.
struct TapRange {
  int64_t first = 0, count = 0, padded = 0;
};

struct PoolWindows {
  Shape out_shape;                               // [N, C, out spatial...]
  int64_t planes = 0;                            // N * C
  std::vector<int64_t> in, out, step;            // spatial sizes; step: the dilations
  std::vector<int64_t> in_strides, out_strides;  // row-major strides of the planes
  std::vector<std::vector<TapRange>> ranges;     // [spatial dim][output index along it]

  int64_t in_size() const { return shape_numel(in); }
  int64_t out_size() const { return shape_numel(out); }
};

// The windows for input shape x; InvalidArgument when x does not fit the kernel. With
// require_input, a window that reads no input element (only padding) is an error too: MaxPool
// and AveragePool without count_include_pad have no value to give it.
Result<PoolWindows> make_pool_windows(const WindowParams& w, const Shape& x, bool require_input, StatusCode code);

// The in-plane row-major offsets of the input elements output position `pos` (row-major over
// the output spatial dims) reads, in row-major order, into `taps`; returns how many of its taps
// lie inside the padded input. At most one plane's worth of taps, whatever the kernel.
int64_t window_taps(const PoolWindows& g, int64_t pos, std::vector<int64_t>* taps);

// Calls fn(out_pos, taps, padded_count) for each output position in order (see window_taps).
template <typename Fn>
void for_each_window(const PoolWindows& g, Fn&& fn) {
  std::vector<int64_t> taps;
  const int64_t out_size = g.out_size();
  for (int64_t pos = 0; pos < out_size; ++pos) {
    const int64_t padded = window_taps(g, pos, &taps);
    fn(pos, static_cast<const std::vector<int64_t>&>(taps), padded);
  }
}

// Global pools: output [N, C, 1, ...] of the input's type; input rank >= 3, dtype in `types`.
Status infer_global_pool(InferContext& ctx, uint64_t types);
Status check_global_pool_input(const Tensor& x);

}  // namespace hi::ops
