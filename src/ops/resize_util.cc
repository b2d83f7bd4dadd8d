// The resampling core of Resize and Upsample (see resize_util.h for the formulation).
#include "ops/resize_util.h"

#include <algorithm>
#include <cmath>

#include "core/memory_budget.h"
#include "core/threading.h"
#include "ops/dispatch.h"
#include "ops/numeric.h"

namespace hi::ops {

bool parse_resize_coord(const std::string& s, ResizeCoord* out) {
  if (s == "half_pixel") *out = ResizeCoord::kHalfPixel;
  else if (s == "half_pixel_symmetric") *out = ResizeCoord::kHalfPixelSymmetric;
  else if (s == "pytorch_half_pixel") *out = ResizeCoord::kPytorchHalfPixel;
  else if (s == "align_corners") *out = ResizeCoord::kAlignCorners;
  else if (s == "asymmetric") *out = ResizeCoord::kAsymmetric;
  else if (s == "tf_half_pixel_for_nn") *out = ResizeCoord::kTfHalfPixelForNN;
  else if (s == "tf_crop_and_resize") *out = ResizeCoord::kTfCropAndResize;
  else return false;
  return true;
}

bool parse_resize_nearest(const std::string& s, ResizeNearest* out) {
  if (s == "round_prefer_floor") *out = ResizeNearest::kRoundPreferFloor;
  else if (s == "round_prefer_ceil") *out = ResizeNearest::kRoundPreferCeil;
  else if (s == "floor") *out = ResizeNearest::kFloor;
  else if (s == "ceil") *out = ResizeNearest::kCeil;
  else return false;
  return true;
}

namespace {

// The taps of every output index along one axis: n input indices (already clamped into the
// axis) and weights per output index, or `extrapolate` for tf_crop_and_resize points outside.
struct AxisTaps {
  int64_t n = 0;
  std::vector<int64_t> index;     // [out * n]
  std::vector<double> weight;     // [out * n]
  std::vector<char> extrapolate;  // [out]
};

// Input coordinate of output index o (the spec's coordinate_transformation_mode formulas; the
// resized length is scale * in as a real number, as the ONNX reference computes it).
double source_coordinate(const ResizeOptions& opt, const ResizeAxis& a, int64_t in, int64_t o, bool* outside) {
  const double x = static_cast<double>(o), len = static_cast<double>(in), s = a.scale;
  const double out_f = s * len;
  *outside = false;
  switch (opt.coord) {
    case ResizeCoord::kHalfPixel: return (x + 0.5) / s - 0.5;
    case ResizeCoord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(a.out) / out_f;
      const double offset = len / 2 * (1 - adjustment);
      return offset + (x + 0.5) / s - 0.5;
    }
    case ResizeCoord::kPytorchHalfPixel: return a.out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case ResizeCoord::kAlignCorners: return out_f == 1 ? 0.0 : x * (len - 1) / (out_f - 1);
    case ResizeCoord::kAsymmetric: return x / s;
    case ResizeCoord::kTfHalfPixelForNN: return (x + 0.5) / s;
    case ResizeCoord::kTfCropAndResize: {
      const double span = (a.roi_end - a.roi_start) * (len - 1);
      double v = out_f == 1 ? span / 2 : x * span / (out_f - 1);
      v += a.roi_start * (len - 1);
      *outside = v < 0 || v > len - 1;
      return v;
    }
  }
  return x;
}

// Keys' cubic convolution kernel with parameter A at distance t.
double cubic_kernel(double t, double a) {
  t = std::abs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0.0;
}

int64_t nearest_index(const ResizeOptions& opt, double x, double scale) {
  const double f = std::floor(x);
  if (x == f) return static_cast<int64_t>(x);
  const double ratio = x - f;
  switch (opt.nearest) {
    case ResizeNearest::kRoundPreferFloor: return static_cast<int64_t>(ratio <= 0.5 ? f : f + 1);
    case ResizeNearest::kRoundPreferCeil: return static_cast<int64_t>(ratio < 0.5 ? f : f + 1);
    case ResizeNearest::kFloor: return static_cast<int64_t>(f);
    case ResizeNearest::kCeil: return static_cast<int64_t>(f + 1);
    case ResizeNearest::kSimple: return scale < 1 ? static_cast<int64_t>(f + 1) : static_cast<int64_t>(std::trunc(x));
  }
  return static_cast<int64_t>(f);
}

AxisTaps axis_taps(const ResizeOptions& opt, const ResizeAxis& a, int64_t in) {
  AxisTaps t;
  const double s = std::min(a.scale, 1.0);  // antialias stretches the kernel when downsampling
  if (opt.mode == ResizeMode::kNearest) t.n = 1;
  else if (!opt.antialias) t.n = opt.mode == ResizeMode::kLinear ? 2 : 4;
  else if (opt.mode == ResizeMode::kLinear) t.n = 2 - 2 * (static_cast<int64_t>(std::floor(-1 / s)) + 1);
  else t.n = 2 - 2 * (static_cast<int64_t>(std::floor(-2 / s)) + 1);
  const auto n = static_cast<size_t>(t.n);
  t.index.assign(static_cast<size_t>(a.out) * n, 0);
  t.weight.assign(static_cast<size_t>(a.out) * n, 0.0);
  t.extrapolate.assign(static_cast<size_t>(a.out), 0);
  std::vector<double> w(n);
  for (int64_t o = 0; o < a.out; ++o) {
    bool outside = false;
    double x = source_coordinate(opt, a, in, o, &outside);
    // Far outside every tap reads the edge; bounding x keeps the integer conversions in range.
    const double bound = static_cast<double>(in + t.n + 4);
    x = std::clamp(x, -bound, bound);
    t.extrapolate[static_cast<size_t>(o)] = outside ? 1 : 0;
    int64_t* idx = t.index.data() + static_cast<size_t>(o) * n;
    double* wt = t.weight.data() + static_cast<size_t>(o) * n;
    if (opt.mode == ResizeMode::kNearest) {
      idx[0] = std::clamp<int64_t>(nearest_index(opt, x, a.scale), 0, in - 1);
      wt[0] = 1.0;
      continue;
    }
    // base and ratio in (0, 1]: an integer x counts as ratio 1 from the element before it.
    const double f = std::floor(x);
    const double base = x == f ? x - 1 : f;
    const double ratio = x - base;
    const int64_t first = static_cast<int64_t>(base) + 1 - t.n / 2;
    if (opt.mode == ResizeMode::kLinear && !opt.antialias) {
      w[0] = 1 - ratio;
      w[1] = ratio;
    } else if (opt.mode == ResizeMode::kCubic && !opt.antialias) {
      for (size_t j = 0; j < 4; ++j) w[j] = cubic_kernel(static_cast<double>(j) - 1 - ratio, opt.cubic_a);
    } else {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) {
        const double d = (static_cast<double>(1 - t.n / 2) + static_cast<double>(j) - ratio) * s;
        w[j] = opt.mode == ResizeMode::kLinear ? std::clamp(1 - std::abs(d), 0.0, 1.0) : cubic_kernel(d, opt.cubic_a);
        sum += w[j];
      }
      if (sum != 0)
        for (double& v : w) v /= sum;
    }
    if (opt.exclude_outside) {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) {
        const int64_t i = first + static_cast<int64_t>(j);
        if (i < 0 || i >= in) w[j] = 0;
        sum += w[j];
      }
      if (sum != 0)
        for (double& v : w) v /= sum;
    }
    for (size_t j = 0; j < n; ++j) {
      idx[j] = std::clamp<int64_t>(first + static_cast<int64_t>(j), 0, in - 1);
      wt[j] = w[j];
    }
  }
  return t;
}

bool is_identity(const ResizeOptions& opt, const ResizeAxis& a, int64_t in) {
  const bool unit_scale = std::abs(a.scale - 1.0) <= 1e-9 * std::max(1.0, std::abs(a.scale));
  const bool full_roi =
      opt.coord != ResizeCoord::kTfCropAndResize || (a.roi_start == 0.0 && std::abs(a.roi_end - 1.0) <= 1e-9);
  return unit_scale && a.out == in && full_roi;
}

// Nearest-neighbour resizing as a gather: each output element copies one input element, at the
// index each axis's table gives (no arithmetic on the values, so any element type is copied
// as it is). Rows along the last axis are shared among the threads. False where an output
// element reads the extrapolation value instead (tf_crop_and_resize outside the box).
bool resize_nearest(const Tensor& x, const std::vector<ResizeAxis>& axes, const ResizeOptions& opt, Tensor& y) {
  const Shape& in = x.shape();
  const size_t r = in.size();
  std::vector<std::vector<int64_t>> index(r);
  for (size_t d = 0; d < r; ++d) {
    const AxisTaps t = axis_taps(opt, axes[d], in[d]);
    for (uint8_t e : t.extrapolate)
      if (e) return false;
    index[d] = t.index;
  }
  std::vector<int64_t> in_stride(r, 1);
  for (size_t d = r - 1; d-- > 0;) in_stride[d] = in_stride[d + 1] * in[d + 1];
  const Shape& out = y.shape();
  const int64_t last = out[r - 1], rows = y.numel() / last;
  const std::vector<int64_t>& cols = index[r - 1];
  auto gather = [&]<typename E>(E) {
    const E* src = static_cast<const E*>(x.raw());
    E* dst = static_cast<E*>(y.raw());
    parallel_for(rows, std::max<int64_t>(1, 4096 / last), [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        int64_t off = 0, rest = row;
        for (size_t d = r - 1; d-- > 0;) {
          off += index[d][static_cast<size_t>(rest % out[d])] * in_stride[d];
          rest /= out[d];
        }
        const E* s = src + off;
        E* o = dst + row * last;
        for (int64_t j = 0; j < last; ++j) o[j] = s[cols[static_cast<size_t>(j)]];
      }
    });
  };
  switch (dtype_size(x.dtype())) {
    case 1: gather(uint8_t{}); return true;
    case 2: gather(uint16_t{}); return true;
    case 4: gather(uint32_t{}); return true;
    case 8: gather(uint64_t{}); return true;
    default: return false;
  }
}

}  // namespace

Result<Tensor> resize_tensor(const Tensor& x, const std::vector<ResizeAxis>& axes, const ResizeOptions& opt) {
  if (axes.size() != x.shape().size())
    return error(StatusCode::kInternal, "resize: ", axes.size(), " axes for ", x.type_string());
  Shape cur = x.shape();
  Shape out_shape(cur.size());
  for (size_t d = 0; d < cur.size(); ++d) {
    out_shape[d] = axes[d].out;
    if (axes[d].out < 0)
      return error(StatusCode::kInvalidArgument, "output size ", axes[d].out, " of dim ", d, " is negative");
    if (cur[d] == 0 && axes[d].out > 0)
      return error(StatusCode::kInvalidArgument, "cannot resize dim ", d, " of ", x.type_string(), " from 0 to ",
                   axes[d].out, " elements");
  }
  Tensor y = Tensor::empty(x.dtype(), out_shape);
  if (y.numel() == 0) return y;
  if (opt.mode == ResizeMode::kNearest && !cur.empty() && dtype_is_supported(x.dtype()) &&
      x.dtype() != DType::kString && resize_nearest(x, axes, opt, y))
    return y;
  // The passes work in double, in two buffers each up to the larger of the input and the output;
  // counted against the session's memory limit (the output tensor already is).
  const ScratchBytes held_input(shape_numel({x.numel(), int64_t{sizeof(double)}}));
  std::vector<double> buf(static_cast<size_t>(x.numel()));
  if (!dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
        const T* p = x.data<T>();
        for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<double>(static_cast<compute_t<T>>(p[i]));
      }))
    return error(StatusCode::kUnsupported, "resize does not support ", dtype_name(x.dtype()));
  // One axis at a time, the ones that shrink first: an intermediate then never holds more than
  // the larger of the input and the output ([1, N] to [N, 1] would otherwise pass through
  // [N, N]). The passes are separable, so the order does not change the result.
  std::vector<size_t> order(cur.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return static_cast<double>(axes[a].out) * static_cast<double>(cur[b]) <
           static_cast<double>(axes[b].out) * static_cast<double>(cur[a]);
  });
  for (const size_t d : order) {
    const int64_t in = cur[d];
    if (is_identity(opt, axes[d], in)) continue;
    const AxisTaps t = axis_taps(opt, axes[d], in);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < d; ++i) outer *= cur[i];
    for (size_t i = d + 1; i < cur.size(); ++i) inner *= cur[i];
    const int64_t out = axes[d].out;
    const ScratchBytes held_pass(shape_numel({outer, out, inner, int64_t{sizeof(double)}}));
    std::vector<double> next(static_cast<size_t>(outer * out * inner));
    for (int64_t po = 0; po < outer; ++po)
      for (int64_t o = 0; o < out; ++o) {
        double* dst = next.data() + (po * out + o) * inner;
        if (t.extrapolate[static_cast<size_t>(o)]) {
          std::fill(dst, dst + inner, opt.extrapolation_value);
          continue;
        }
        std::fill(dst, dst + inner, 0.0);
        for (int64_t j = 0; j < t.n; ++j) {
          const size_t k = static_cast<size_t>(o * t.n + j);
          const double w = t.weight[k];
          if (w == 0) continue;
          const double* src = buf.data() + (po * in + t.index[k]) * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
        }
      }
    buf.swap(next);
    cur[d] = out;
  }
  dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
    T* p = y.data<T>();
    for (size_t i = 0; i < buf.size(); ++i) {
      if constexpr (kIsFloat<T>) p[i] = saturate_cast<T>(buf[i]);
      else p[i] = saturate_cast<T>(std::nearbyint(buf[i]));  // round half to even, then saturate
    }
  });
  return y;
}

}  // namespace hi::ops
