// Upsample (opset 7-9; deprecated in 10, removed in 11 in favour of Resize): scales each dim by
// a factor >= 1 (the 'scales' attribute in opset 7-8, an input from 9), output = floor(input *
// scale), with nearest (truncating asymmetric coordinates) or linear (asymmetric) interpolation,
// as ONNX Runtime does. The resampling is Resize's (resize_util.h).
#include <cmath>

#include "ops/elementwise.h"
#include "ops/index_util.h"
#include "ops/resize_util.h"

namespace hi::ops {
namespace {

class UpsampleOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    if (opset_ >= 11)
      return ctx.fail(StatusCode::kInvalidModel, "Upsample was removed in opset 11 (the model imports opset ", opset_,
                      "); use Resize");
    const std::string mode = ctx.get_string("mode", "nearest");
    if (mode == "nearest") opt_.mode = ResizeMode::kNearest;
    else if (mode == "linear" || mode == "bilinear") opt_.mode = ResizeMode::kLinear;
    else return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of nearest, linear");
    opt_.coord = ResizeCoord::kAsymmetric;
    opt_.nearest = ResizeNearest::kSimple;
    if (opset_ < 9) {
      if (!ctx.has("scales")) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'scales' is missing");
      for (float s : ctx.get_floats("scales")) scales_attr_.push_back(s);
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, opset_ < 9 ? 1 : 2, opset_ < 9 ? 1 : 2));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (opset_ >= 9 && ctx.input_type(1).dtype != DType::kUndefined && !dtype_is_float(ctx.input_type(1).dtype))
      return error(StatusCode::kInvalidModel, "scales must be float, got ", ctx.input_type(1).to_string());
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> dims = *x.shape;
    std::vector<double> scales = scales_attr_;
    if (opset_ >= 9) {
      if (const Tensor* v = ctx.input_value(1)) {
        HI_ASSIGN_OR_RETURN(scales, scales_of(*v, StatusCode::kInvalidModel));
      } else {
        ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(dims.size())));
        return Status::ok();
      }
    }
    HI_RETURN_IF_ERROR(check_scales(scales, dims.size(), StatusCode::kInvalidModel));
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_known()) {
        HI_ASSIGN_OR_RETURN(const int64_t size, scaled(dims[d].value, scales, d, StatusCode::kInvalidModel));
        dims[d] = ir::Dim::known(size);
      } else if (scales[d] != 1.0) {
        dims[d] = ir::Dim{};
      }
    }
    HI_RETURN_IF_ERROR(check_output_dims(dims, "scales " + scales_string(scales)));
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    std::vector<double> scales = scales_attr_;
    if (opset_ >= 9) {
      HI_ASSIGN_OR_RETURN(scales, scales_of(ctx.in(1), StatusCode::kInvalidArgument));
    }
    HI_RETURN_IF_ERROR(check_scales(scales, x.shape().size(), StatusCode::kInvalidArgument));
    if (!in_set(kNumericTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    std::vector<ResizeAxis> plan(x.shape().size());
    Shape out_shape;
    for (size_t d = 0; d < plan.size(); ++d) {
      plan[d].scale = scales[d];
      HI_ASSIGN_OR_RETURN(plan[d].out, scaled(x.shape()[d], scales, d, StatusCode::kInvalidArgument));
      out_shape.push_back(plan[d].out);
    }
    HI_RETURN_IF_ERROR(check_output_shape(out_shape, "scales " + scales_string(scales), StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(Tensor y, resize_tensor(x, plan, opt_));
    ctx.set_output(0, std::move(y));
    return Status::ok();
  }

 private:
  // floor(size * scales[d]), when that fits in int64.
  static Result<int64_t> scaled(int64_t size, const std::vector<double>& scales, size_t d, StatusCode code) {
    const double o = std::floor(static_cast<double>(size) * scales[d]);
    if (!(o < 9.0e18))
      return error(code, "scales ", scales_string(scales), " make dim ", d, " of ", size, " elements ", o,
                   " long, more than int64 can count");
    return static_cast<int64_t>(o);
  }
  static std::string scales_string(const std::vector<double>& scales) {
    std::string s = "[";
    for (size_t i = 0; i < scales.size(); ++i) s += (i ? ", " : "") + str(scales[i]);
    return s + "]";
  }
  static Result<std::vector<double>> scales_of(const Tensor& t, StatusCode code) {
    if (!dtype_is_float(t.dtype()) || t.rank() != 1)
      return error(code, "scales must be a 1-D float tensor, got ", t.type_string());
    std::vector<double> v;
    for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.as_double(i));
    return v;
  }

  static Status check_scales(const std::vector<double>& scales, size_t rank, StatusCode code) {
    if (scales.size() != rank) return error(code, "scales has ", scales.size(), " values; X has rank ", rank);
    for (size_t i = 0; i < scales.size(); ++i)
      if (!(scales[i] >= 1) || !std::isfinite(scales[i]) || scales[i] > 1e9)
        return error(code, "scales[", i, "] = ", scales[i], " must be a finite number >= 1 (Upsample only enlarges)");
    return Status::ok();
  }

  int64_t opset_ = 9;
  ResizeOptions opt_;
  std::vector<double> scales_attr_;
};

}  // namespace

HI_REGISTER_OP(Upsample, UpsampleOp)

}  // namespace hi::ops
