#include "ops/inverted_residual.h"

#include <vector>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "ops/elementwise.h"
#include "ops/internal.h"

namespace hi::ops {
namespace {

constexpr const char* kStages[3] = {"expand", "depthwise", "project"};

}  // namespace

Status InvertedResidualOp::init(InitContext& ctx) {
  window_.parse(ctx, true);
  for (int s = 0; s < 3; ++s) {
    const std::string key = std::string(kStages[s]) + "_activation";
    const std::string name = ctx.get_string(key, "");
    if (!Activation::parse(name, ctx.get_floats(key + "_params"), &acts_[s]))
      return ctx.fail(StatusCode::kInvalidModel, key, " '", name,
                      "' is not a fused activation, or has the wrong number of params");
  }
  const std::string precision = ctx.get_string("precision", "fp32");
  if (precision != "fp32" && precision != "bf16")
    return ctx.fail(StatusCode::kInvalidModel, "precision must be fp32 or bf16, got '", precision, "'");
  bf16_ = precision == "bf16";
  HI_RETURN_IF_ERROR(ctx.status());
  return window_.resolve_rank(2);
}

Status InvertedResidualOp::infer(InferContext& ctx) const {
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kFloat32) return unsupported_dtype(ctx.node(), x.dtype);
  const ir::ValueType& wp = ctx.input_type(5);
  if (!x.has_rank() || !wp.is_static()) {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
    return Status::ok();
  }
  if (x.rank() != 4) return error(StatusCode::kInvalidModel, "X ", x.to_string(), " must be [N, H, W, C]");
  const auto& xd = *x.shape;
  std::vector<ir::Dim> out = {xd[0], ir::Dim(), ir::Dim(), ir::Dim::known(wp.concrete_shape()[0])};
  if (xd[1].is_known() && xd[2].is_known()) {
    std::vector<int64_t> pads, o;
    HI_RETURN_IF_ERROR(window_.output_dims({xd[1].value, xd[2].value}, &pads, &o));
    out[1] = ir::Dim::known(o[0]);
    out[2] = ir::Dim::known(o[1]);
  }
  ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, out));
  return Status::ok();
}

Result<InvertedResidualOp::Plan> InvertedResidualOp::plan(const RunContext& ctx) const {
  const Tensor& x = ctx.in(0);
  const Tensor* we = ctx.input(1);
  const Tensor* be = ctx.input(2);
  const Tensor& wd = ctx.in(3);
  const Tensor* bd = ctx.input(4);
  const Tensor& wp = ctx.in(5);
  const Tensor* bp = ctx.input(6);
  const Tensor* z = ctx.input(7);
  if (x.dtype() != DType::kFloat32 || x.rank() != 4)
    return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " must be float32 [N, H, W, C]");
  Plan g;
  g.batch = x.dim(0);
  g.height = x.dim(1);
  g.width = x.dim(2);
  g.in_channels = x.dim(3);
  g.expand = we != nullptr;
  g.hidden = wd.rank() == 4 ? wd.dim(0) : -1;
  g.out_channels = wp.rank() == 4 ? wp.dim(0) : -1;
  // Every weight's shape against the geometry X and the window give.
  auto expect = [](const char* what, const Tensor* t, const Shape& want) -> Status {
    if (!t || t->dtype() != DType::kFloat32 || t->shape() != want)
      return error(StatusCode::kInvalidArgument, what, " is ", t ? t->type_string() : "missing", ", expected float32",
                   shape_to_string(want));
    return Status::ok();
  };
  const Shape dw_shape = {g.hidden, 1, window_.kernel[0], window_.kernel[1]};
  HI_RETURN_IF_ERROR(expect("depthwise W", &wd, dw_shape));
  if (g.expand) {
    HI_RETURN_IF_ERROR(expect("expand W", we, {g.hidden, g.in_channels, 1, 1}));
    if (be) HI_RETURN_IF_ERROR(expect("expand B", be, {g.hidden}));
  } else if (g.hidden != g.in_channels) {
    return error(StatusCode::kInvalidArgument, "X has ", g.in_channels, " channels but the depthwise W ",
                 wd.type_string(), " has ", g.hidden, " (no expansion)");
  }
  if (bd) HI_RETURN_IF_ERROR(expect("depthwise B", bd, {g.hidden}));
  HI_RETURN_IF_ERROR(expect("project W", &wp, {g.out_channels, g.hidden, 1, 1}));
  if (bp) HI_RETURN_IF_ERROR(expect("project B", bp, {g.out_channels}));
  if (window_.dilations[0] != 1 || window_.dilations[1] != 1)
    return error(StatusCode::kInvalidModel, "dilations must be 1, got ", shape_to_string(window_.dilations));
  std::vector<int64_t> pads, out;
  HI_RETURN_IF_ERROR(window_.output_dims({g.height, g.width}, &pads, &out));
  g.pad_top = pads[0];
  g.pad_left = pads[1];
  g.out_height = out[0];
  g.out_width = out[1];
  g.y_shape = {g.batch, g.out_height, g.out_width, g.out_channels};
  if (z) HI_RETURN_IF_ERROR(expect("residual Z", z, g.y_shape));
  return g;
}

Status InvertedResidualOp::run(RunContext& ctx) const {
  HI_ASSIGN_OR_RETURN(const Plan g, plan(ctx));
  const Tensor& x = ctx.in(0);
  const Tensor* we = ctx.input(1);
  const Tensor* be = ctx.input(2);
  const Tensor* bd = ctx.input(4);
  const Tensor* bp = ctx.input(6);
  const Tensor* z = ctx.input(7);
  const float* wd = ctx.in(3).data<float>();
  const float* wp = ctx.in(5).data<float>();
  Tensor& y = ctx.output(0, DType::kFloat32, g.y_shape);
  const int64_t kh = window_.kernel[0], kw = window_.kernel[1], sh = window_.strides[0], sw = window_.strides[1];
  const int64_t in_px = g.height * g.width, out_px = g.out_height * g.out_width;
  const ScratchBytes held(shape_numel({in_px + out_px, g.hidden, int64_t{sizeof(float)}}));
  std::vector<float> e(static_cast<size_t>(in_px * g.hidden)), d(static_cast<size_t>(out_px * g.hidden));
  for (int64_t n = 0; n < g.batch; ++n) {
    check_run_stop();
    const float* xn = x.data<float>() + n * in_px * g.in_channels;
    // Expand: a 1x1 convolution over channels (or X itself).
    for (int64_t p = 0; p < in_px; ++p)
      for (int64_t m = 0; m < g.hidden; ++m) {
        float v = 0;
        if (g.expand) {
          v = be ? be->data<float>()[m] : 0.f;
          for (int64_t c = 0; c < g.in_channels; ++c)
            v += xn[p * g.in_channels + c] * we->data<float>()[m * g.in_channels + c];
          v = acts_[0].apply(v);
        } else {
          v = xn[p * g.in_channels + m];
        }
        e[static_cast<size_t>(p * g.hidden + m)] = v;
      }
    // Depthwise: each channel with its own kh x kw window, zero padding.
    for (int64_t oh = 0; oh < g.out_height; ++oh)
      for (int64_t ow = 0; ow < g.out_width; ++ow)
        for (int64_t m = 0; m < g.hidden; ++m) {
          float v = bd ? bd->data<float>()[m] : 0.f;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ih = oh * sh - g.pad_top + i, iw = ow * sw - g.pad_left + j;
              if (ih >= 0 && ih < g.height && iw >= 0 && iw < g.width)
                v += e[static_cast<size_t>((ih * g.width + iw) * g.hidden + m)] * wd[(m * kh + i) * kw + j];
            }
          d[static_cast<size_t>((oh * g.out_width + ow) * g.hidden + m)] = acts_[1].apply(v);
        }
    // Project: a 1x1 convolution, then the residual, then the activation (FusedConv's order).
    float* yn = y.data<float>() + n * out_px * g.out_channels;
    const float* zn = z ? z->data<float>() + n * out_px * g.out_channels : nullptr;
    for (int64_t p = 0; p < out_px; ++p)
      for (int64_t o = 0; o < g.out_channels; ++o) {
        float v = bp ? bp->data<float>()[o] : 0.f;
        for (int64_t m = 0; m < g.hidden; ++m) v += d[static_cast<size_t>(p * g.hidden + m)] * wp[o * g.hidden + m];
        if (zn) v += zn[p * g.out_channels + o];
        yn[p * g.out_channels + o] = acts_[2].apply(v);
      }
  }
  return Status::ok();
}

HI_REGISTER_OP(InvertedResidual, InvertedResidualOp)

}  // namespace hi::ops
