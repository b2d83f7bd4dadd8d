// ImageScaler (opset 1, experimental; removed from ONNX in opset 10): y[n, c, ...] =
// scale * x[n, c, ...] + bias[c] on an [N, C, H, W] (or any rank >= 2) input. bias has one value
// per channel (absent: no bias); scale defaults to 1.
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class ImageScalerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    scale_ = ctx.get_float("scale", 1.f);
    bias_ = ctx.get_floats("bias");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kFloatTypes, "input"));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.has_rank()) {
      if (x.rank() < 2)
        return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": input must be [N, C, ...], got ",
                     x.to_string());
      const ir::Dim c = (*x.shape)[1];
      if (c.is_known()) HI_RETURN_IF_ERROR(check_bias(c.value, StatusCode::kInvalidModel));
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "input", x.dtype());
    if (x.rank() < 2)
      return error(StatusCode::kInvalidArgument, "ImageScaler (opset ", opset_, "): input must be [N, C, ...], got ",
                   x.type_string());
    const int64_t channels = x.dim(1);
    HI_RETURN_IF_ERROR(check_bias(channels, StatusCode::kInvalidArgument));
    const int64_t inner = channels == 0 ? 0 : x.numel() / x.dim(0) / channels;
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = inner == 0 ? 0 : (i / inner) % channels;
        const C bias = bias_.empty() ? C(0) : static_cast<C>(bias_[static_cast<size_t>(c)]);
        py[i] = static_cast<T>(static_cast<C>(scale_) * static_cast<C>(px[i]) + bias);
      }
    });
    return Status::ok();
  }

 private:
  Status check_bias(int64_t channels, StatusCode code) const {
    if (bias_.empty() || static_cast<int64_t>(bias_.size()) == channels) return Status::ok();
    return error(code, "ImageScaler (opset ", opset_, "): bias has ", bias_.size(), " values, the input has ", channels,
                 " channels");
  }

  int64_t opset_ = 0;
  float scale_ = 1.f;
  std::vector<float> bias_;
};

}  // namespace

HI_REGISTER_OP(ImageScaler, ImageScalerOp)

}  // namespace hi::ops
