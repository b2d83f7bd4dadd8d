// Resize (kernels/resize.cu): nearest and (multi)linear resampling of any axes of a tensor, one
// thread per output element. The taps follow the CPU Resize (ops/resize_util.cc) exactly: source
// coordinates in double with the ONNX coordinate_transformation_mode formulas, the same
// nearest_mode rounding and clamping, and linear weights (1 - r, r); the weighted sum is in
// float32. Not covered: cubic, antialias, tf_crop_and_resize (the op's support check refuses them).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/host_device.h"
#include "hipinfer/tensor.h"

namespace hi::gpu::HI_GPU_NS {

constexpr int kMaxResizeRank = 8;

enum class ResizeCoordMode : int {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNN
};
// kSimple: Resize-10's rule (scale < 1: floor + 1 unless exact; else truncate).
enum class ResizeNearestMode : int { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeDesc {
  int rank = 0;
  bool linear = false;  // else nearest
  ResizeCoordMode coord = ResizeCoordMode::kHalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::kRoundPreferFloor;
  int64_t in_dims[kMaxResizeRank] = {};
  int64_t out_dims[kMaxResizeRank] = {};
  double scales[kMaxResizeRank] = {};
  bool resized[kMaxResizeRank] = {};  // false: the axis is copied as it is (scale 1, same size)
};

// The descriptor for x -> y with one scale per axis of x (the CPU op's: from 'scales', or output
// over input for 'sizes'); an axis with scale 1 and the same size is copied, as the CPU does.
// Errors: rank above kMaxResizeRank (kUnsupported), an empty axis resized to a non-empty one
// (kInvalidArgument).
Result<ResizeDesc> make_resize_desc(const Shape& x, const Shape& y, const std::vector<double>& scales, bool linear,
                                    ResizeCoordMode coord, ResizeNearestMode nearest);

// One output index's taps along an axis: nearest reads i0; linear (1 - w1) x[i0] + w1 x[i1].
struct ResizeTap {
  int64_t i0 = 0, i1 = 0;
  double w1 = 0;
};

HI_HOST_DEVICE inline double resize_coordinate(const ResizeDesc& d, int k, int64_t o) {
  const double x = static_cast<double>(o), len = static_cast<double>(d.in_dims[k]), s = d.scales[k];
  const double out_f = s * len;
  switch (d.coord) {
    case ResizeCoordMode::kHalfPixel: return (x + 0.5) / s - 0.5;
    case ResizeCoordMode::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(d.out_dims[k]) / out_f;
      const double offset = len / 2 * (1 - adjustment);
      return offset + (x + 0.5) / s - 0.5;
    }
    case ResizeCoordMode::kPytorchHalfPixel: return d.out_dims[k] > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case ResizeCoordMode::kAlignCorners: return out_f == 1 ? 0.0 : x * (len - 1) / (out_f - 1);
    case ResizeCoordMode::kAsymmetric: return x / s;
    case ResizeCoordMode::kTfHalfPixelForNN: return (x + 0.5) / s;
  }
  return x;
}

HI_HOST_DEVICE inline int64_t resize_nearest_index(ResizeNearestMode mode, double x, double scale) {
  const double f = floor(x);
  if (x == f) return static_cast<int64_t>(x);
  const double ratio = x - f;
  switch (mode) {
    case ResizeNearestMode::kRoundPreferFloor: return static_cast<int64_t>(ratio <= 0.5 ? f : f + 1);
    case ResizeNearestMode::kRoundPreferCeil: return static_cast<int64_t>(ratio < 0.5 ? f : f + 1);
    case ResizeNearestMode::kFloor: return static_cast<int64_t>(f);
    case ResizeNearestMode::kCeil: return static_cast<int64_t>(f + 1);
    case ResizeNearestMode::kSimple: return scale < 1 ? static_cast<int64_t>(f + 1) : static_cast<int64_t>(trunc(x));
  }
  return static_cast<int64_t>(f);
}

HI_HOST_DEVICE inline int64_t resize_clamp(int64_t i, int64_t n) { return i < 0 ? 0 : i > n - 1 ? n - 1 : i; }

HI_HOST_DEVICE inline ResizeTap resize_tap(const ResizeDesc& d, int k, int64_t o) {
  ResizeTap t;
  if (!d.resized[k]) {
    t.i0 = t.i1 = o;
    return t;
  }
  const int64_t in = d.in_dims[k];
  double x = resize_coordinate(d, k, o);
  // Far outside every tap reads the edge; bounding x keeps the integer conversions in range.
  const double bound = static_cast<double>(in + (d.linear ? 2 : 1) + 4);
  x = x < -bound ? -bound : x > bound ? bound : x;
  if (!d.linear) {
    t.i0 = t.i1 = resize_clamp(resize_nearest_index(d.nearest, x, d.scales[k]), in);
    return t;
  }
  // base and ratio in (0, 1]: an integer x counts as ratio 1 from the element before it.
  const double f = floor(x);
  const double base = x == f ? x - 1 : f;
  t.w1 = x - base;
  t.i0 = resize_clamp(static_cast<int64_t>(base), in);
  t.i1 = resize_clamp(static_cast<int64_t>(base) + 1, in);
  return t;
}

// Output element `o` from `load(i)`, the input's element i as float.
template <typename Load>
HI_HOST_DEVICE float resize_element(const ResizeDesc& d, const Load& load, int64_t o) {
  ResizeTap taps[kMaxResizeRank];
  int64_t strides[kMaxResizeRank];
  int linear_axes[kMaxResizeRank];
  int n_linear = 0;
  int64_t base = 0, stride = 1;
  for (int k = d.rank - 1; k >= 0; --k) {
    const int64_t coord = o % d.out_dims[k];
    o /= d.out_dims[k];
    taps[k] = resize_tap(d, k, coord);
    strides[k] = stride;
    if (d.linear && d.resized[k]) linear_axes[n_linear++] = k;
    else base += taps[k].i0 * stride;
    stride *= d.in_dims[k];
  }
  if (n_linear == 0) return load(base);
  // The corners of the linear axes; a zero weight skips its tap, as the CPU does.
  float acc = 0.f;
  for (int corner = 0; corner < (1 << n_linear); ++corner) {
    double w = 1;
    int64_t offset = base;
    for (int j = 0; j < n_linear; ++j) {
      const int k = linear_axes[j];
      const bool high = ((corner >> j) & 1) != 0;
      w *= high ? taps[k].w1 : 1 - taps[k].w1;
      offset += (high ? taps[k].i1 : taps[k].i0) * strides[k];
    }
    if (w != 0) acc += static_cast<float>(w) * load(offset);
  }
  return acc;
}

// y = resize(x) (shapes in d); dtype kFloat32 or kFloat16.
Status resize(const ResizeDesc& d, DType dtype, const void* x, void* y, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
