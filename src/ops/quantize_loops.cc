// QuantizeLinear and DequantizeLinear in their common case, float32 <-> 8-bit integers with a
// float32 scale, as loops the compiler vectorises (the reference ops go element by element
// through doubles, which made a QDQ model's activations cost more than its convolutions). The
// arithmetic is the reference's, so the results are bit-identical: x / scale in float32, rounded
// half to even, plus the zero point, saturated; NaN quantizes to the zero point; dequantizing,
// (x - zero point) * scale rounded once to float32.
#include <algorithm>
#include <cstdint>

#include "core/threading.h"
#include "ops/quantize_loops.h"

namespace hi::ops::quant {
namespace {

constexpr int64_t kGrain = 1 << 16;  // elements per thread at least: below that one thread

// Round half to even without a libm call (which would keep the loop scalar): adding and
// subtracting 1.5 * 2^23 leaves the nearest integer, ties to even, for |v| <= 2^22; larger
// values are clamped first, since they saturate anyway.
inline float round_half_even(float v) {
  v = v > 4194304.f ? 4194304.f : v;
  v = v < -4194304.f ? -4194304.f : v;
  return (v + 12582912.f) - 12582912.f;
}

template <typename S, int Lo, int Hi>
inline void quantize_span(const float* x, int64_t n, float scale, float zero_point, S* y) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] / scale;
    const float r = round_half_even(v);         // computed either way: a conditional would keep the loop scalar
    float q = (v == v ? r : 0.f) + zero_point;  // NaN: the zero point
    q = q < float(Lo) ? float(Lo) : q;
    q = q > float(Hi) ? float(Hi) : q;
    y[i] = static_cast<S>(static_cast<int32_t>(q));
  }
}

// DequantizeLinear of a and of b, Add, QuantizeLinear, each rounded to float32 as the graph's
// ops round (this file is compiled without contracting the multiply and add into an FMA).
template <typename S, int Lo, int Hi>
inline void add_span(const S* a, const S* b, int64_t n, const QuantizedAddParams& p, S* y) {
  // Locals: a byte store may alias the parameters, which would keep the loop scalar.
  const float za = static_cast<float>(p.a_zero_point), zb = static_cast<float>(p.b_zero_point);
  const float zy = static_cast<float>(p.y_zero_point), sa = p.a_scale, sb = p.b_scale, sy = p.y_scale;
  for (int64_t i = 0; i < n; ++i) {
    const float da = (static_cast<float>(a[i]) - za) * sa;
    const float db = (static_cast<float>(b[i]) - zb) * sb;
    const float v = (da + db) / sy;
    const float r = round_half_even(v);
    float q = (v == v ? r : 0.f) + zy;
    q = q < float(Lo) ? float(Lo) : q;
    q = q > float(Hi) ? float(Hi) : q;
    y[i] = static_cast<S>(static_cast<int32_t>(q));
  }
}

template <typename S>
inline void dequantize_span(const S* x, int64_t n, float scale, float zero_point, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = (static_cast<float>(x[i]) - zero_point) * scale;
}

#define HI_QUANT_KERNEL __attribute__((target_clones("avx512f", "avx2", "default")))

HI_QUANT_KERNEL void quantize_u8_span(const float* x, int64_t n, float scale, float zp, uint8_t* y) {
  quantize_span<uint8_t, 0, 255>(x, n, scale, zp, y);
}
HI_QUANT_KERNEL void quantize_s8_span(const float* x, int64_t n, float scale, float zp, int8_t* y) {
  quantize_span<int8_t, -128, 127>(x, n, scale, zp, y);
}
HI_QUANT_KERNEL void add_u8_span(const uint8_t* a, const uint8_t* b, int64_t n, const QuantizedAddParams& p,
                                 uint8_t* y) {
  add_span<uint8_t, 0, 255>(a, b, n, p, y);
}
HI_QUANT_KERNEL void add_s8_span(const int8_t* a, const int8_t* b, int64_t n, const QuantizedAddParams& p, int8_t* y) {
  add_span<int8_t, -128, 127>(a, b, n, p, y);
}
HI_QUANT_KERNEL void dequantize_u8_span(const uint8_t* x, int64_t n, float scale, float zp, float* y) {
  dequantize_span(x, n, scale, zp, y);
}
HI_QUANT_KERNEL void dequantize_s8_span(const int8_t* x, int64_t n, float scale, float zp, float* y) {
  dequantize_span(x, n, scale, zp, y);
}

template <typename In, typename Out, typename F>
void split(const In* x, int64_t n, Out* y, F&& span) {
  parallel_for((n + kGrain - 1) / kGrain, 1, [&](int64_t c0, int64_t c1) {
    const int64_t i0 = c0 * kGrain, i1 = std::min(n, c1 * kGrain);
    span(x + i0, i1 - i0, y + i0);
  });
}

}  // namespace

void quantize_to_u8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y) {
  split(x, n, y, [&](const float* a, int64_t m, uint8_t* b) { quantize_u8_span(a, m, scale, float(zero_point), b); });
}
void quantize_to_s8(const float* x, int64_t n, float scale, int32_t zero_point, int8_t* y) {
  split(x, n, y, [&](const float* a, int64_t m, int8_t* b) { quantize_s8_span(a, m, scale, float(zero_point), b); });
}
void quantized_add_u8(const uint8_t* a, const uint8_t* b, int64_t n, const QuantizedAddParams& p, uint8_t* y) {
  split(a, n, y, [&](const uint8_t* s, int64_t m, uint8_t* d) { add_u8_span(s, b + (s - a), m, p, d); });
}
void quantized_add_s8(const int8_t* a, const int8_t* b, int64_t n, const QuantizedAddParams& p, int8_t* y) {
  split(a, n, y, [&](const int8_t* s, int64_t m, int8_t* d) { add_s8_span(s, b + (s - a), m, p, d); });
}

void dequantize_u8(const uint8_t* x, int64_t n, float scale, int32_t zero_point, float* y) {
  split(x, n, y, [&](const uint8_t* a, int64_t m, float* b) { dequantize_u8_span(a, m, scale, float(zero_point), b); });
}
void dequantize_s8(const int8_t* x, int64_t n, float scale, int32_t zero_point, float* y) {
  split(x, n, y, [&](const int8_t* a, int64_t m, float* b) { dequantize_s8_span(a, m, scale, float(zero_point), b); });
}

}  // namespace hi::ops::quant
