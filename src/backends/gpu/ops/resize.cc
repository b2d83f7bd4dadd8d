// Resize, nearest and linear (kernels/resize.cu), over any axes of a float tensor: the scales or
// sizes (and opset 18's axes and keep_aspect_ratio_policy) give one scale per axis on the host,
// as the CPU op computes them. Not covered: cubic, antialias, tf_crop_and_resize.
#include <algorithm>
#include <cmath>

#include "backends/gpu/kernels/resize.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

bool parse_coord(const std::string& s, ResizeCoordMode* out) {
  if (s == "half_pixel") *out = ResizeCoordMode::kHalfPixel;
  else if (s == "half_pixel_symmetric") *out = ResizeCoordMode::kHalfPixelSymmetric;
  else if (s == "pytorch_half_pixel") *out = ResizeCoordMode::kPytorchHalfPixel;
  else if (s == "align_corners") *out = ResizeCoordMode::kAlignCorners;
  else if (s == "asymmetric") *out = ResizeCoordMode::kAsymmetric;
  else if (s == "tf_half_pixel_for_nn") *out = ResizeCoordMode::kTfHalfPixelForNN;
  else return false;
  return true;
}

bool parse_nearest(const std::string& s, ResizeNearestMode* out) {
  if (s == "round_prefer_floor") *out = ResizeNearestMode::kRoundPreferFloor;
  else if (s == "round_prefer_ceil") *out = ResizeNearestMode::kRoundPreferCeil;
  else if (s == "floor") *out = ResizeNearestMode::kFloor;
  else if (s == "ceil") *out = ResizeNearestMode::kCeil;
  else return false;
  return true;
}

enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

class Resize final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    opset_ = ctx.opset();
    linear_ = ctx.get_string("mode", "nearest") == "linear";
    if (opset_ < 11) {  // Resize-10: asymmetric coordinates, Upsample's nearest rule
      coord_ = ResizeCoordMode::kAsymmetric;
      nearest_ = ResizeNearestMode::kSimple;
      return Status::ok();
    }
    const std::string coord = ctx.get_string("coordinate_transformation_mode", "half_pixel");
    const std::string nearest = ctx.get_string("nearest_mode", "round_prefer_floor");
    HI_RETURN_IF(!parse_coord(coord, &coord_), kUnsupported, "GPU Resize: coordinate_transformation_mode ", coord);
    HI_RETURN_IF(!parse_nearest(nearest, &nearest_), kUnsupported, "GPU Resize: nearest_mode ", nearest);
    if (opset_ >= 18) {
      has_axes_ = ctx.has("axes");
      axes_ = ctx.get_ints("axes");
      const std::string policy = ctx.get_string("keep_aspect_ratio_policy", "stretch");
      policy_ = policy == "not_larger"    ? AspectPolicy::kNotLarger
                : policy == "not_smaller" ? AspectPolicy::kNotSmaller
                                          : AspectPolicy::kStretch;
    }
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input >= 1; }
  Status launch(LaunchContext& ctx) const override;

 private:
  int64_t opset_ = 19;
  bool linear_ = false;
  ResizeCoordMode coord_ = ResizeCoordMode::kHalfPixel;
  ResizeNearestMode nearest_ = ResizeNearestMode::kRoundPreferFloor;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
  AspectPolicy policy_ = AspectPolicy::kStretch;
};

Status Resize::launch(LaunchContext& ctx) const {
  const DeviceValue& x = ctx.input(0);
  DeviceValue& y = ctx.output(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  for (int64_t a : has_axes_ ? axes_ : std::vector<int64_t>{}) axes.push_back(a < 0 ? a + rank : a);
  if (!has_axes_)
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  for (int64_t a : axes)
    HI_RETURN_IF(a < 0 || a >= rank, kInvalidArgument, "Resize: axis out of range for rank ", rank);
  // scales, or sizes (an empty tensor counts as absent).
  const size_t scales_in = opset_ < 11 ? 1 : 2;
  std::vector<double> scales, sizes;
  if (ctx.has_input(scales_in)) {
    HI_ASSIGN_OR_RETURN(scales, host_doubles(ctx, scales_in));
  }
  if (opset_ >= 11 && ctx.has_input(3)) {
    HI_ASSIGN_OR_RETURN(sizes, host_doubles(ctx, 3));
  }
  HI_RETURN_IF(scales.empty() == sizes.empty(), kInvalidArgument,
               "Resize: exactly one of scales and sizes must be given");
  const std::vector<double>& given = scales.empty() ? sizes : scales;
  HI_RETURN_IF(given.size() != axes.size(), kInvalidArgument, "Resize: ", given.size(), " ",
               scales.empty() ? "sizes" : "scales", " for ", axes.size(), " axes");
  std::vector<double> per_axis(static_cast<size_t>(rank), 1.0);
  if (!scales.empty()) {
    for (size_t i = 0; i < axes.size(); ++i) per_axis[static_cast<size_t>(axes[i])] = scales[i];
  } else if (policy_ == AspectPolicy::kStretch) {
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t in = x.shape[static_cast<size_t>(axes[i])];
      per_axis[static_cast<size_t>(axes[i])] = in > 0 ? sizes[i] / static_cast<double>(in) : 1.0;
    }
  } else {  // one scale for every axis: the smallest or the largest of sizes / input
    double common = policy_ == AspectPolicy::kNotLarger ? INFINITY : 0.0;
    for (size_t i = 0; i < axes.size(); ++i) {
      const double s = sizes[i] / static_cast<double>(x.shape[static_cast<size_t>(axes[i])]);
      common = policy_ == AspectPolicy::kNotLarger ? std::min(common, s) : std::max(common, s);
    }
    for (int64_t a : axes) per_axis[static_cast<size_t>(a)] = common;
  }
  HI_ASSIGN_OR_RETURN(const ResizeDesc d, make_resize_desc(x.shape, y.shape, per_axis, linear_, coord_, nearest_));
  return resize(d, x.dtype, x.ptr, y.ptr, ctx.stream());
}

}  // namespace

std::string resize_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  const std::string mode = attr_string(node, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return "no GPU kernel for Resize with mode " + mode;
  const std::string coord = attr_string(node, "coordinate_transformation_mode", "half_pixel");
  ResizeCoordMode c;
  if (!parse_coord(coord, &c)) return "no GPU kernel for Resize with coordinate_transformation_mode " + coord;
  ResizeNearestMode n;
  const std::string nearest = attr_string(node, "nearest_mode", "round_prefer_floor");
  if (!parse_nearest(nearest, &n)) return "no GPU kernel for Resize with nearest_mode " + nearest;
  if (mode == "linear" && attr_int(node, "antialias", 0) != 0) return "no GPU kernel for Resize with antialias";
  return rank_reason(node, inputs, 0, kMaxResizeRank);
}

std::unique_ptr<GpuKernel> make_resize(const ir::Node&) { return std::make_unique<Resize>(); }

}  // namespace hi::gpu::HI_GPU_NS
