// DynamicQuantizeLinear: uint8 quantization of a float32 tensor with a scale and zero point
// computed from its range (widened to include 0), all in float32 as the spec's function body:
//   scale = (max(0, max x) - min(0, min x)) / 255  (1/255 when the range is empty)
//   zero_point = round_half_even(clamp(0 - min(0, min x) / scale, 0, 255))
//   y = saturate(round_half_even(x / scale) + zero_point)
// NaNs are left out of the range (and quantize to the zero point).
#include <cmath>

#include "ops/arity.h"
#include "ops/elementwise.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

using U8 = quant::IntCodec<uint8_t, 0, 255>;

class DynamicQuantizeLinearOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 3));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && x.dtype != DType::kFloat32)
      return error(StatusCode::kUnsupported, "DynamicQuantizeLinear (opset 11) takes float32 x, not ",
                   dtype_name(x.dtype));
    ir::ValueType y = x;
    y.dtype = DType::kUInt8;
    ctx.set_output_type(0, y);
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kFloat32, {}));
    if (ctx.num_outputs() > 2) ctx.set_output_type(2, ir::ValueType::tensor(DType::kUInt8, {}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32) return unsupported_dtype(ctx.node(), x.dtype(), "x");
    const float* px = x.data<float>();
    float lo = 0.f, hi = 0.f;
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (std::isnan(px[i])) continue;
      lo = std::min(lo, px[i]);
      hi = std::max(hi, px[i]);
    }
    const float scale = (hi == lo ? 1.f : hi - lo) / 255.f;
    // An infinite input makes the scale infinite and lo / scale NaN: zero point 0, not UB.
    const float zp_unclamped = 0.f - lo / scale;
    const float zp_real = std::isnan(zp_unclamped) ? 0.f : std::clamp(zp_unclamped, 0.f, 255.f);
    const uint8_t zp = static_cast<uint8_t>(std::nearbyint(zp_real));
    Tensor& y = ctx.output(0, DType::kUInt8, x.shape());
    uint8_t* py = y.data<uint8_t>();
    for (int64_t i = 0; i < x.numel(); ++i) py[i] = U8::quantize(static_cast<double>(px[i] / scale), zp, true);
    if (ctx.num_outputs() > 1) ctx.output(1, DType::kFloat32, {}).data<float>()[0] = scale;
    if (ctx.num_outputs() > 2) ctx.output(2, DType::kUInt8, {}).data<uint8_t>()[0] = zp;
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(DynamicQuantizeLinear, DynamicQuantizeLinearOp)

}  // namespace hi::ops
