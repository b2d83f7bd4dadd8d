// QLinearConv: quantized convolution.
//   acc = conv(x - x_zero_point, w - w_zero_point) + B    (int32; groups, pads, strides, dilations,
//                                                          auto_pad as Conv)
//   y   = saturate(round_half_even(acc * (x_scale * w_scale / y_scale)) + y_zero_point)
// x and y are quantized per tensor, w per tensor or per output channel; the multiplier is
// computed in float32 as ONNX's reference does, the product in double.
#include "ops/arity.h"
#include "ops/integer_conv.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

constexpr const char* kOp = "QLinearConv";

class QLinearConvOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    window_.parse(ctx, true);
    group_ = ctx.get_int("group", 1);
    if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, kOp, ": group must be positive, got ", group_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 8, 9));
    std::vector<DType> types;
    for (size_t i = 0; i < 9; ++i) types.push_back(ctx.has_input(i) ? ctx.input_type(i).dtype : DType::kUndefined);
    HI_RETURN_IF_ERROR(qconv::check_qlinear_conv_types(types));
    HI_ASSIGN_OR_RETURN(ir::ValueType y,
                        qconv::conv_type(kOp, ctx.input_type(0), ctx.input_type(3), group_, window_, types[7]));
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    std::vector<const Tensor*> in;
    for (size_t i = 0; i < 9; ++i) in.push_back(ctx.input(i));
    return qconv::qlinear_conv(in, group_, window_, false,
                               [&](DType t, const Shape& s) -> Tensor& { return ctx.output(0, t, s); });
  }

 private:
  WindowParams window_;
  int64_t group_ = 1;
};

}  // namespace

HI_REGISTER_OP(QLinearConv, QLinearConvOp)

}  // namespace hi::ops
