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

struct PoolWindows {
  Shape out_shape;               // [N, C, out spatial...]
  int64_t planes = 0;            // N * C
  std::vector<int64_t> in, out;  // spatial sizes
  // Per spatial dim d and output index o along it: the input positions the window reads, and
  // how many of its taps lie inside the padded input.
  std::vector<std::vector<std::vector<int64_t>>> taps;
  std::vector<std::vector<int64_t>> padded_taps;

  int64_t in_size() const { return shape_numel(in); }
  int64_t out_size() const { return shape_numel(out); }
};

// The windows for input shape x; InvalidArgument when x does not fit the kernel. With
// require_input, a window that reads no input element (only padding) is an error too: MaxPool
// and AveragePool without count_include_pad have no value to give it.
Result<PoolWindows> make_pool_windows(const WindowParams& w, const Shape& x, bool require_input, StatusCode code);

// Calls fn(out_pos, taps, padded_count) for each output position (row-major over the output
// spatial dims) with the in-plane row-major offsets of the input elements its window reads, in
// row-major order, and the number of its taps inside the padded input.
template <typename Fn>
void for_each_window(const PoolWindows& g, Fn&& fn) {
  const size_t r = g.in.size();
  const std::vector<int64_t> in_strides = strides_of(g.in);
  const int64_t out_size = g.out_size();
  std::vector<int64_t> o(r, 0), taps, next;
  for (int64_t pos = 0; pos < out_size; ++pos) {
    taps.assign(1, 0);
    int64_t padded = 1;
    for (size_t d = 0; d < r; ++d) {
      const auto& p = g.taps[d][static_cast<size_t>(o[d])];
      next.clear();
      for (int64_t t : taps)
        for (int64_t q : p) next.push_back(t + q * in_strides[d]);
      taps.swap(next);
      padded *= g.padded_taps[d][static_cast<size_t>(o[d])];
    }
    fn(pos, static_cast<const std::vector<int64_t>&>(taps), padded);
    for (size_t d = r; d-- > 0;) {  // next output position, last dim fastest
      if (++o[d] < g.out[d]) break;
      o[d] = 0;
    }
  }
}

// Global pools: output [N, C, 1, ...] of the input's type; input rank >= 3, dtype in `types`.
Status infer_global_pool(InferContext& ctx, uint64_t types);
Status check_global_pool_input(const Tensor& x);

}  // namespace hi::ops
