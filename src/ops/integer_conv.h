// The integer convolution behind ConvInteger and QLinearConv: shapes from conv_util.h's window
// geometry, zero points per tensor (x) or per output channel (w), and a direct N-d convolution
// accumulating in int32 (wrapping on overflow, as the spec allows).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "ops/conv_util.h"

namespace hi::ops::qconv {

struct ConvGeometry {
  int64_t n = 0, c = 0, m = 0, group = 1;
  std::vector<int64_t> in, out, pads;  // spatial sizes; pads [begin..., end...] resolved
  WindowParams window;                 // kernel, strides and dilations resolved
  Shape out_shape;                     // [N, M, out...]
};

// Checks X [N, C, spatial...] against W [M, C/group, kernel...] and works out the output.
Result<ConvGeometry> conv_geometry(const char* op, const Shape& x, const Shape& w, int64_t group,
                                   const WindowParams& window);
// The output type for static inference (symbolic dims allowed); `out` is its dtype.
Result<ir::ValueType> conv_type(const char* op, const ir::ValueType& x, const ir::ValueType& w, int64_t group,
                                const WindowParams& window, DType out);

// x minus its zero point (nullptr: 0), which must have one element. `what` names x's zero point.
Result<std::vector<int32_t>> shift_input(const char* op, const Tensor& x, const Tensor* zp, const char* what);
// w minus its zero point (nullptr: 0): one element, or one per output channel (1-D [M]).
Result<std::vector<int32_t>> shift_weights(const char* op, const Tensor& w, const Tensor* zp, const char* what);

// y[n, m, out...] = sum over m's group of channels and the kernel of x * w, where a window
// position in the padding reads 0 (x is already shifted by its zero point).
std::vector<int32_t> conv_int32(const ConvGeometry& g, const std::vector<int32_t>& x, const std::vector<int32_t>& w);

// QLinearConv's input types: x, w and y int8/uint8 with zero points of the same type, float32
// scales, int32 bias (kUndefined: absent or not yet known).
Status check_qlinear_conv_types(const std::vector<DType>& types);
// QLinearConv on NCHW tensors (inputs in its order, B may be null): y = saturate(round_half_even(
// (conv(x - x_zp, w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp); with `relu`, codes below
// y's zero point are raised to it (Relu before quantizing). `output` allocates y.
Status qlinear_conv(const std::vector<const Tensor*>& in, int64_t group, const WindowParams& window, bool relu,
                    const std::function<Tensor&(DType, const Shape&)>& output);

}  // namespace hi::ops::qconv
