// The 8-bit quantize, dequantize and quantized-Add loops of QuantizeLinear, DequantizeLinear and
// QLinearAdd: plain C++ the compiler vectorises (target_clones), so they are the ops' own kernels
// on every backend build rather than a CPU backend's fast path.
#pragma once

#include <cstdint>

namespace hi::ops::quant {

// QuantizeLinear / DequantizeLinear's common case, float32 <-> 8-bit with one float32 scale and
// zero point over n elements, as loops the compiler vectorises, split over the threads; the same
// results as the ops' element-by-element reference bit for bit.
void quantize_to_u8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y);
void quantize_to_s8(const float* x, int64_t n, float scale, int32_t zero_point, int8_t* y);
void dequantize_u8(const uint8_t* x, int64_t n, float scale, int32_t zero_point, float* y);
void dequantize_s8(const int8_t* x, int64_t n, float scale, int32_t zero_point, float* y);
// A QDQ model's quantized Add, DequantizeLinear(a) + DequantizeLinear(b) -> QuantizeLinear, over
// n elements of the same 8-bit type, bit-identical to those three ops in float32.
struct QuantizedAddParams {
  float a_scale = 1, b_scale = 1, y_scale = 1;
  int32_t a_zero_point = 0, b_zero_point = 0, y_zero_point = 0;
};
void quantized_add_u8(const uint8_t* a, const uint8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y);
void quantized_add_s8(const int8_t* a, const int8_t* b, int64_t n, const QuantizedAddParams& p, int8_t* y);

}  // namespace hi::ops::quant
