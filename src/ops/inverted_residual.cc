// InvertedResidual (com.hipinfer, made by the fuse_inverted_residual pass): a MobileNet block,
// FusedConv 1x1 (expand) -> FusedConv depthwise -> FusedConv 1x1 (project, + residual Z), all
// float32 and channels-last, as one kernel that keeps the expanded tensor in the cache
// (cpu/inverted_residual.h). Inputs: X [N, H, W, C], expand W and B (both empty when the block
// has no expansion), depthwise W [M, 1, kh, kw] and B, project W [O, M, 1, 1] and B, optional Z
// [N, OH, OW, O]. The window attributes are the depthwise convolution's; each stage has its
// activation as `<stage>_activation` and `<stage>_activation_params`; `precision` "bf16" runs the
// pointwise products in bfloat16 where the CPU has AVX512_BF16 (float32 elsewhere).

#include "cpu/inverted_residual.h"
#include "ops/conv_util.h"
#include "ops/elementwise.h"
#include "ops/internal.h"
#include "cpu/kernel_cache.h"

namespace hi::ops {
namespace {

constexpr const char* kStages[3] = {"expand", "depthwise", "project"};

class InvertedResidualOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    window_.parse(ctx, true);
    for (int s = 0; s < 3; ++s) {
      const std::string key = std::string(kStages[s]) + "_activation";
      const std::string name = ctx.get_string(key, "");
      if (!cpu::Activation::parse(name, ctx.get_floats(key + "_params"), &acts_[s]) ||
          !cpu::inverted_residual_activation_supported(acts_[s]))
        return ctx.fail(StatusCode::kInvalidModel, key, " '", name,
                        "' is not none, Relu or Clip, or has the wrong number of params");
    }
    const std::string precision = ctx.get_string("precision", "fp32");
    if (precision != "fp32" && precision != "bf16")
      return ctx.fail(StatusCode::kInvalidModel, "precision must be fp32 or bf16, got '", precision, "'");
    bf16_ = precision == "bf16";
    HI_RETURN_IF_ERROR(ctx.status());
    return window_.resolve_rank(2);
  }

  Status infer(InferContext& ctx) const override {
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

  Status run(RunContext& ctx) const override {
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
    cpu::InvertedResidualGeometry g;
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
    g.kernel_h = window_.kernel[0];
    g.kernel_w = window_.kernel[1];
    g.stride_h = window_.strides[0];
    g.stride_w = window_.strides[1];
    g.pad_top = pads[0];
    g.pad_left = pads[1];
    g.out_height = out[0];
    g.out_width = out[1];
    g.residual = z != nullptr;
    g.bf16 = bf16_;
    const Shape y_shape = {g.batch, g.out_height, g.out_width, g.out_channels};
    if (z) HI_RETURN_IF_ERROR(expect("residual Z", z, y_shape));
    Tensor& y = ctx.output(0, DType::kFloat32, y_shape);
    if (y.numel() == 0) return Status::ok();
    std::shared_ptr<const cpu::InvertedResidualKernel> kernel;
    {
      // One kernel per input shape and weight set, the packed weights shared among them.
      const std::vector<int64_t> key = {
          g.batch,   g.height, g.width, reinterpret_cast<int64_t>(wd.raw()), reinterpret_cast<int64_t>(wp.raw()),
          g.residual};
      kernel = kernels_.get(key, [&](cpu::WeightCache* cache) {
        cpu::InvertedResidualWeights w;
        w.expand_w = we ? we->data<float>() : nullptr;
        w.expand_b = be ? be->data<float>() : nullptr;
        w.depthwise_w = wd.data<float>();
        w.depthwise_b = bd ? bd->data<float>() : nullptr;
        w.project_w = wp.data<float>();
        w.project_b = bp ? bp->data<float>() : nullptr;
        w.expand_act = acts_[0];
        w.depthwise_act = acts_[1];
        w.project_act = acts_[2];
        w.cache = cache;
        return cpu::make_inverted_residual_kernel(g, w);
      });
    }
    if (!kernel)
      return error(StatusCode::kUnsupported, "this CPU has no AVX-512, which the fused inverted residual kernel needs");
    kernel->run(x.data<float>(), z ? z->data<float>() : nullptr, y.data<float>());
    return Status::ok();
  }

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  WindowParams window_;
  cpu::Activation acts_[3];
  bool bf16_ = false;  // the pointwise products in bfloat16
  mutable cpu::KernelCache<cpu::InvertedResidualKernel> kernels_;
};

}  // namespace

HI_REGISTER_OP(InvertedResidual, InvertedResidualOp)

}  // namespace hi::ops
