// The resampling core shared by Resize (opset 10-19+) and Upsample (opset 7-9): per-axis
// coordinate transformation, nearest/linear/cubic weights (with antialias and exclude_outside),
// applied one axis at a time (the interpolation is separable) in double precision.
//
// For each axis, output index o maps to x = coordinate(o) in input coordinates; the taps are n
// consecutive input indices starting at base + 1 - n/2, where base = floor(x) (x - 1 when x is an
// integer, so the ratio x - base lies in (0, 1]); taps outside the input read the edge element
// (or, with exclude_outside, get weight 0 and the rest are renormalised). This is the ONNX
// reference implementation's formulation, which the backend tests are generated from.
#pragma once

#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

namespace hi::ops {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNN,
  kTfCropAndResize
};
// kSimple is Upsample's (and Resize-10's) rule, as ONNX Runtime implements it: truncate when
// upsampling, ceil when downsampling.
enum class ResizeNearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeOptions {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoord coord = ResizeCoord::kHalfPixel;
  ResizeNearest nearest = ResizeNearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;            // linear and cubic only
  double extrapolation_value = 0.0;  // tf_crop_and_resize, outside the ROI's image
};

// What to do along one axis.
struct ResizeAxis {
  int64_t out = 0;                        // output length
  double scale = 1.0;                     // output / input, as given (scales) or computed (sizes)
  double roi_start = 0.0, roi_end = 1.0;  // tf_crop_and_resize only
};

// Parses the attribute spellings ("half_pixel", "round_prefer_floor", ...); false if unknown.
bool parse_resize_coord(const std::string& s, ResizeCoord* out);
bool parse_resize_nearest(const std::string& s, ResizeNearest* out);

// Resamples x (any numeric dtype) into a new tensor of x's dtype, axis by axis. `axes` has one
// entry per dim of x. Integer outputs round half to even and saturate (as the reference does).
Result<Tensor> resize_tensor(const Tensor& x, const std::vector<ResizeAxis>& axes, const ResizeOptions& opt);

}  // namespace hi::ops
