// Shared math for the attention ops (Attention, FlexAttention, LinearAttention, ...): reading Q,
// K and V heads in either layout, the Q·Kᵀ and P·V products, a softmax that leaves a row with no
// attendable key at zero, and rounding to the element types the ops' specs name between steps.
// Everything runs in double; an op rounds where its spec has an intermediate tensor of type T.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "ops/dispatch.h"
#include "ops/elementwise.h"

namespace hi::ops::attn {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// v rounded to the float type `t` (an intermediate tensor of that type); v itself for others.
inline double round_to(DType t, double v) {
  double r = v;
  dispatch<kFloatTypes>(t,
                        [&]<typename T>() { r = static_cast<double>(static_cast<T>(static_cast<compute_t<T>>(v))); });
  return r;
}
inline void round_all(DType t, std::vector<double>& v) {
  if (t == DType::kFloat64) return;
  for (double& x : v) x = round_to(t, x);
}

// A float tensor's elements as doubles.
inline std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.as_double(i);
  return v;
}

// Writes doubles into a float tensor of the same element count, rounding once per element.
inline void store(const std::vector<double>& v, Tensor& t) {
  dispatch<kFloatTypes>(t.dtype(), [&]<typename T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(static_cast<compute_t<T>>(v[static_cast<size_t>(i)]));
  });
}

// Where element (b, h, s, d) of a per-head tensor lives: 4-D [B, H, S, D], or 3-D [B, S, H * D]
// with the heads packed into the last dim.
struct HeadLayout {
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0;
  bool packed = false;  // 3-D input

  int64_t offset(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return packed ? ((b * seq + s) * heads + h) * head_size + d : ((b * heads + h) * seq + s) * head_size + d;
  }
  int64_t numel() const { return batch * heads * seq * head_size; }
};

// The tensor's values reordered to [B, H, S, D].
inline std::vector<double> to_bhsd(const Tensor& t, const HeadLayout& l) {
  std::vector<double> v(static_cast<size_t>(l.numel()));
  size_t i = 0;
  for (int64_t b = 0; b < l.batch; ++b)
    for (int64_t h = 0; h < l.heads; ++h)
      for (int64_t s = 0; s < l.seq; ++s)
        for (int64_t d = 0; d < l.head_size; ++d) v[i++] = t.as_double(l.offset(b, h, s, d));
  return v;
}

// scores[i, j] = sum_d q[i, d] * k[j, d] for q [sq, d] and k [skv, d], row-major.
inline void matmul_qkt(const double* q, const double* k, int64_t sq, int64_t skv, int64_t d, double* scores) {
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < skv; ++j) {
      double acc = 0;
      for (int64_t e = 0; e < d; ++e) acc += q[i * d + e] * k[j * d + e];
      scores[i * skv + j] = acc;
    }
}

// out[i, e] = sum_j p[i, j] * v[j, e] for p [sq, skv] and v [skv, dv], row-major.
inline void matmul_pv(const double* p, const double* v, int64_t sq, int64_t skv, int64_t dv, double* out) {
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t e = 0; e < dv; ++e) {
      double acc = 0;
      for (int64_t j = 0; j < skv; ++j) acc += p[i * skv + j] * v[j * dv + e];
      out[i * dv + e] = acc;
    }
}

// softcap * tanh(x / softcap) when softcap > 0, else x.
inline double softcap(double x, double cap) { return cap > 0 ? cap * std::tanh(x / cap) : x; }

// Softmax of n values in place. A row whose maximum is -inf (every key masked) becomes all
// zeros instead of 0/0 = NaN: it has no key to attend to.
inline void softmax_row(double* x, int64_t n) {
  double mx = kNegInf;
  for (int64_t j = 0; j < n; ++j) mx = std::isnan(x[j]) || x[j] > mx ? x[j] : mx;
  if (mx == kNegInf) {
    for (int64_t j = 0; j < n; ++j) x[j] = 0;
    return;
  }
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += (x[j] = std::exp(x[j] - mx));
  for (int64_t j = 0; j < n; ++j) x[j] /= sum;
}

// True when every one of the n bias values is -inf (no key may be attended).
inline bool all_masked(const double* bias, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    if (!(bias[j] == kNegInf)) return false;
  return true;
}

}  // namespace hi::ops::attn
