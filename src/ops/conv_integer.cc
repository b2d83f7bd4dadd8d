// ConvInteger: int32 Y = conv(X - x_zero_point, W - w_zero_point) with Conv's groups, pads,
// strides, dilations and auto_pad; X and W are int8 or uint8, x_zero_point per tensor,
// w_zero_point per tensor or per output channel. Padding stands for x_zero_point (0 once shifted).
#include <algorithm>

#include "ops/arity.h"
#include "ops/integer_conv.h"

namespace hi::ops {
namespace {

constexpr const char* kOp = "ConvInteger";

bool is_8bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

class ConvIntegerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    window_.parse(ctx, true);
    group_ = ctx.get_int("group", 1);
    if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, kOp, ": group must be positive, got ", group_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 4));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& w = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_types(x.dtype, w.dtype, ctx.has_input(2) ? ctx.input_type(2).dtype : DType::kUndefined,
                                   ctx.has_input(3) ? ctx.input_type(3).dtype : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(ir::ValueType y, qconv::conv_type(kOp, x, w, group_, window_, DType::kInt32));
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& w = ctx.in(1);
    const Tensor* x_zp = ctx.input(2);
    const Tensor* w_zp = ctx.input(3);
    HI_RETURN_IF_ERROR(check_types(x.dtype(), w.dtype(), x_zp ? x_zp->dtype() : DType::kUndefined,
                                   w_zp ? w_zp->dtype() : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(qconv::ConvGeometry g, qconv::conv_geometry(kOp, x.shape(), w.shape(), group_, window_));
    HI_ASSIGN_OR_RETURN(auto xs, qconv::shift_input(kOp, x, x_zp, "x_zero_point"));
    HI_ASSIGN_OR_RETURN(auto ws, qconv::shift_weights(kOp, w, w_zp, "w_zero_point"));
    const std::vector<int32_t> y = qconv::conv_int32(g, xs, ws);
    Tensor& out = ctx.output(0, DType::kInt32, g.out_shape);
    std::copy(y.begin(), y.end(), out.data<int32_t>());
    return Status::ok();
  }

 private:
  static Status check_types(DType x, DType w, DType x_zp, DType w_zp) {
    if (x != DType::kUndefined && !is_8bit(x))
      return error(StatusCode::kUnsupported, kOp, " (opset 10) takes int8 or uint8 x, not ", dtype_name(x));
    if (w != DType::kUndefined && !is_8bit(w))
      return error(StatusCode::kUnsupported, kOp, " (opset 10) takes int8 or uint8 w, not ", dtype_name(w));
    if (x_zp != DType::kUndefined && x != DType::kUndefined && x_zp != x)
      return error(StatusCode::kInvalidModel, kOp, ": x_zero_point is ", dtype_name(x_zp), " but x is ", dtype_name(x));
    if (w_zp != DType::kUndefined && w != DType::kUndefined && w_zp != w)
      return error(StatusCode::kInvalidModel, kOp, ": w_zero_point is ", dtype_name(w_zp), " but w is ", dtype_name(w));
    return Status::ok();
  }

  WindowParams window_;
  int64_t group_ = 1;
};

}  // namespace

HI_REGISTER_OP(ConvInteger, ConvIntegerOp)

}  // namespace hi::ops
