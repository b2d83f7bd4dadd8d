// Resize: resamples a tensor with nearest, linear or cubic interpolation (resize_util.h).
//   opset 10: inputs X, scales; asymmetric coordinates, Upsample's nearest rule.
//   opset 11: inputs X, roi, scales, sizes; coordinate_transformation_mode, cubic_coeff_a,
//             exclude_outside, extrapolation_value, nearest_mode ('tf_half_pixel_for_nn' only
//             here; opset 13 dropped it and made roi and scales optional).
//   opset 18: antialias, axes (scales/sizes/roi then cover only those axes) and
//             keep_aspect_ratio_policy (stretch, not_larger, not_smaller); 19: half_pixel_symmetric.
// Exactly one of scales and sizes must be given (an empty tensor counts as absent). With scales,
// output = floor(input * scale) (the ROI does not scale it, as in ONNX Runtime, the ONNX shape
// inference and its reference implementation); with sizes, scale = output / input.
#include <cmath>
#include <optional>

#include "ops/elementwise.h"
#include "ops/index_util.h"
#include "ops/resize_util.h"

namespace hi::ops {
namespace {

enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

class ResizeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string mode = ctx.get_string("mode", "nearest");
    if (mode == "nearest") opt_.mode = ResizeMode::kNearest;
    else if (mode == "linear") opt_.mode = ResizeMode::kLinear;
    else if (mode == "cubic" && opset_ >= 11) opt_.mode = ResizeMode::kCubic;
    else
      return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of nearest, linear",
                      opset_ >= 11 ? ", cubic" : "", " (opset ", opset_, ")");
    if (opset_ < 11) {
      opt_.coord = ResizeCoord::kAsymmetric;
      opt_.nearest = ResizeNearest::kSimple;
      return ctx.status();
    }
    const std::string coord = ctx.get_string("coordinate_transformation_mode", "half_pixel");
    if (!parse_resize_coord(coord, &opt_.coord) || (opt_.coord == ResizeCoord::kTfHalfPixelForNN && opset_ >= 13) ||
        (opt_.coord == ResizeCoord::kHalfPixelSymmetric && opset_ < 19))
      return ctx.fail(StatusCode::kInvalidModel, "coordinate_transformation_mode '", coord, "' is not valid in opset ",
                      opset_, " (half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize",
                      opset_ < 13 ? ", tf_half_pixel_for_nn" : "", opset_ >= 19 ? ", half_pixel_symmetric" : "", ")");
    const std::string nearest = ctx.get_string("nearest_mode", "round_prefer_floor");
    if (!parse_resize_nearest(nearest, &opt_.nearest))
      return ctx.fail(StatusCode::kInvalidModel, "nearest_mode '", nearest,
                      "' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
    opt_.cubic_a = ctx.get_float("cubic_coeff_a", -0.75f);
    opt_.exclude_outside = ctx.get_int("exclude_outside", 0) != 0;
    opt_.extrapolation_value = ctx.get_float("extrapolation_value", 0.f);
    if (opset_ >= 18) {
      const int64_t aa = ctx.get_int("antialias", 0);
      if (aa != 0 && aa != 1) return ctx.fail(StatusCode::kInvalidModel, "antialias must be 0 or 1, got ", aa);
      opt_.antialias = aa == 1 && opt_.mode != ResizeMode::kNearest;
      has_axes_ = ctx.has("axes");
      axes_ = ctx.get_ints("axes");
      const std::string policy = ctx.get_string("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") policy_ = AspectPolicy::kStretch;
      else if (policy == "not_larger") policy_ = AspectPolicy::kNotLarger;
      else if (policy == "not_smaller") policy_ = AspectPolicy::kNotSmaller;
      else
        return ctx.fail(StatusCode::kInvalidModel, "keep_aspect_ratio_policy '", policy,
                        "' is not one of stretch, not_larger, not_smaller");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, opset_ < 11 ? 2 : 1, opset_ < 11 ? 2 : 4));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    const size_t scales_in = opset_ < 11 ? 1 : 2, sizes_in = 3, roi_in = 1;
    if (ctx.has_input(scales_in) && ctx.input_type(scales_in).dtype != DType::kUndefined &&
        !dtype_is_float(ctx.input_type(scales_in).dtype))
      return error(StatusCode::kInvalidModel, "scales must be float, got ", ctx.input_type(scales_in).to_string());
    if (opset_ >= 11 && ctx.has_input(sizes_in) && ctx.input_type(sizes_in).dtype != DType::kUndefined &&
        ctx.input_type(sizes_in).dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "sizes must be int64, got ", ctx.input_type(sizes_in).to_string());
    if (opset_ >= 11 && ctx.has_input(roi_in) && ctx.input_type(roi_in).dtype != DType::kUndefined &&
        !dtype_is_float(ctx.input_type(roi_in).dtype))
      return error(StatusCode::kInvalidModel, "roi must be float, got ", ctx.input_type(roi_in).to_string());
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> axes, resolve_axes(x.rank(), StatusCode::kInvalidModel));
    std::vector<int64_t> in;
    for (const ir::Dim& d : *x.shape) in.push_back(d.is_known() ? d.value : -1);
    // Which of scales and sizes is given, if their values or at least shapes say so.
    auto given = [&](size_t i) -> std::optional<bool> {
      if (i >= ctx.num_inputs() || !ctx.has_input(i)) return false;
      if (const Tensor* v = ctx.input_value(i)) return v->numel() > 0;
      const ir::ValueType& t = ctx.input_type(i);
      if (t.is_static()) return shape_numel(t.concrete_shape()) > 0;
      return std::nullopt;
    };
    const std::optional<bool> has_scales = given(scales_in),
                              has_sizes = opset_ >= 11 ? given(sizes_in) : std::optional<bool>(false);
    std::vector<ir::Dim> dims = *x.shape;
    // The ROI never changes the output shape, so an unknown one does not stop inference.
    const bool values_known =
        (has_scales == false || ctx.input_value(scales_in)) && (has_sizes == false || ctx.input_value(sizes_in));
    if (has_scales && has_sizes && values_known) {
      HI_ASSIGN_OR_RETURN(std::vector<ResizeAxis> plan,
                          make_plan(in, axes, *has_scales ? ctx.input_value(scales_in) : nullptr,
                                    *has_sizes ? ctx.input_value(sizes_in) : nullptr,
                                    opset_ >= 11 && ctx.has_input(roi_in) ? ctx.input_value(roi_in) : nullptr,
                                    StatusCode::kInvalidModel));
      // Dims outside `axes`, and unknown dims scaled by 1, keep what they were (symbols too).
      for (int64_t a : axes) {
        const auto d = static_cast<size_t>(a);
        if (plan[d].out >= 0) dims[d] = ir::Dim::known(plan[d].out);
        else if (!(*has_scales && plan[d].scale == 1.0)) dims[d] = ir::Dim{};
      }
      HI_RETURN_IF_ERROR(
          check_output_dims(dims, source(*has_scales ? ctx.input_value(scales_in) : ctx.input_value(sizes_in),
                                         *has_scales ? "scales" : "sizes")));
    } else {
      for (int64_t a : axes) dims[static_cast<size_t>(a)] = ir::Dim{};
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor* scales = ctx.input(opset_ < 11 ? 1 : 2);
    const Tensor* sizes = opset_ >= 11 ? ctx.input(3) : nullptr;
    const Tensor* roi = opset_ >= 11 ? ctx.input(1) : nullptr;
    if (scales && scales->numel() == 0) scales = nullptr;
    if (sizes && sizes->numel() == 0) sizes = nullptr;
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> axes, resolve_axes(x.rank(), StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(std::vector<ResizeAxis> plan,
                        make_plan(x.shape(), axes, scales, sizes, roi, StatusCode::kInvalidArgument));
    Shape out_shape;
    for (const ResizeAxis& a : plan) out_shape.push_back(a.out);
    HI_RETURN_IF_ERROR(check_output_shape(out_shape, source(scales ? scales : sizes, scales ? "scales" : "sizes"),
                                          StatusCode::kInvalidArgument));
    if (!in_set(kNumericTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    HI_ASSIGN_OR_RETURN(Tensor y, resize_tensor(x, plan, opt_));
    ctx.set_output(0, std::move(y));
    return Status::ok();
  }

 private:
  // "input 'scales' [2, 3.5]", naming what an output shape came from.
  static std::string source(const Tensor* t, const char* name) {
    std::string s = std::string("input '") + name + "' [";
    for (int64_t i = 0; t && i < t->numel() && i < 8; ++i)
      s += (i ? ", " : "") + (dtype_is_integer(t->dtype()) ? std::to_string(t->as_int64(i)) : str(t->as_double(i)));
    return s + (t && t->numel() > 8 ? ", ...]" : "]");
  }
  Result<std::vector<int64_t>> resolve_axes(int64_t rank, StatusCode code) const {
    std::vector<int64_t> axes;
    if (!has_axes_) {
      for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
      return axes;
    }
    auto r = normalize_axes(axes_, rank, "axes");
    if (!r.is_ok()) return Status(code, r.status().message());
    return r;
  }

  // Per-dim output size (-1: unknown because the input dim is), scale and ROI. `in` holds -1
  // for unknown input dims; scales and sizes (at most one non-null, non-empty) list `axes`.
  Result<std::vector<ResizeAxis>> make_plan(const std::vector<int64_t>& in, const std::vector<int64_t>& axes,
                                            const Tensor* scales, const Tensor* sizes, const Tensor* roi,
                                            StatusCode code) const {
    if (scales && scales->numel() == 0) scales = nullptr;
    if (sizes && sizes->numel() == 0) sizes = nullptr;
    if (!scales && !sizes) return error(code, "one of scales and sizes must be given (non-empty)");
    if (scales && sizes)
      return error(code, "only one of scales and sizes may be given, got scales ", scales->type_string(), " and sizes ",
                   sizes->type_string());
    const size_t r = in.size(), k = axes.size();
    std::vector<ResizeAxis> plan(r);
    for (size_t d = 0; d < r; ++d) plan[d].out = in[d];
    if (scales) {
      if (!dtype_is_float(scales->dtype()) || scales->rank() != 1 || static_cast<size_t>(scales->numel()) != k)
        return error(code, "scales ", scales->type_string(), " must be a 1-D float tensor with ", k,
                     " values (one per ", has_axes_ ? "axis in 'axes'" : "dim of X", ")");
      for (size_t i = 0; i < k; ++i) {
        const double s = scales->as_double(static_cast<int64_t>(i));
        if (!(s > 0) || !std::isfinite(s))
          return error(code, "scales[", i, "] = ", s, " must be a positive finite number");
        ResizeAxis& a = plan[static_cast<size_t>(axes[i])];
        a.scale = s;
        if (a.out >= 0) {
          const double o = std::floor(static_cast<double>(a.out) * s);
          if (o > 9.0e18)
            return error(code, "scales[", i, "] = ", s, " makes dim ", axes[i], " of ", a.out, " elements ", o,
                         " long, more than int64 can count");
          a.out = static_cast<int64_t>(o);
        }
      }
    } else {
      if (sizes->dtype() != DType::kInt64 || sizes->rank() != 1 || static_cast<size_t>(sizes->numel()) != k)
        return error(code, "sizes ", sizes->type_string(), " must be a 1-D int64 tensor with ", k, " values (one per ",
                     has_axes_ ? "axis in 'axes'" : "dim of X", ")");
      for (size_t i = 0; i < k; ++i)
        if (sizes->as_int64(static_cast<int64_t>(i)) < 0)
          return error(code, "sizes ", sizes->type_string(), " has a negative value");
      if (policy_ == AspectPolicy::kStretch) {
        for (size_t i = 0; i < k; ++i) {
          ResizeAxis& a = plan[static_cast<size_t>(axes[i])];
          const int64_t want = sizes->as_int64(static_cast<int64_t>(i));
          a.scale = a.out > 0 ? static_cast<double>(want) / static_cast<double>(a.out) : 1.0;
          a.out = want;
        }
      } else {
        bool known = true;
        double scale = policy_ == AspectPolicy::kNotLarger ? INFINITY : 0.0;
        for (size_t i = 0; i < k; ++i) {
          const int64_t d = in[static_cast<size_t>(axes[i])];
          if (d < 0) {
            known = false;
            continue;
          }
          if (d == 0) return error(code, "keep_aspect_ratio_policy cannot scale dim ", axes[i], ", which is empty");
          const double s = static_cast<double>(sizes->as_int64(static_cast<int64_t>(i))) / static_cast<double>(d);
          scale = policy_ == AspectPolicy::kNotLarger ? std::min(scale, s) : std::max(scale, s);
        }
        for (size_t i = 0; i < k; ++i) {
          ResizeAxis& a = plan[static_cast<size_t>(axes[i])];
          if (!known) {
            a.out = -1;
            continue;
          }
          a.scale = scale;
          const double o = std::floor(scale * static_cast<double>(a.out) + 0.5);
          if (!(o < 9.0e18))  // an int64 (NaN, from a 0 / 0 scale, is no size either)
            return error(code, source(sizes, "sizes"), " with keep_aspect_ratio_policy scales dim ", axes[i], " of ",
                         a.out, " to ", o, " elements, more than int64 can count");
          a.out = static_cast<int64_t>(o);
        }
      }
    }
    if (roi && roi->numel() > 0 && opt_.coord == ResizeCoord::kTfCropAndResize) {
      if (!dtype_is_float(roi->dtype()) || roi->rank() != 1 || static_cast<size_t>(roi->numel()) != 2 * k)
        return error(code, "roi ", roi->type_string(), " must be a 1-D float tensor with ", 2 * k,
                     " values (starts, then ends)");
      for (size_t i = 0; i < k; ++i) {
        ResizeAxis& a = plan[static_cast<size_t>(axes[i])];
        a.roi_start = roi->as_double(static_cast<int64_t>(i));
        a.roi_end = roi->as_double(static_cast<int64_t>(i + k));
        if (!std::isfinite(a.roi_start) || !std::isfinite(a.roi_end))
          return error(code, "roi ", roi->type_string(), " has a non-finite value");
      }
    }
    return plan;
  }

  int64_t opset_ = 19;
  ResizeOptions opt_;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
  AspectPolicy policy_ = AspectPolicy::kStretch;
};

}  // namespace

HI_REGISTER_OP(Resize, ResizeOp)

}  // namespace hi::ops
