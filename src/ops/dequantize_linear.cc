// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, per axis (opset 13) or in
// blocks along an axis (opset 21). y has x_scale's type, or `output_dtype` (opset 23); the
// product is computed in float32 and rounded once to y's type.
#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/quantize_loops.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

using quant::QuantUse;

constexpr uint64_t kOutputTypes = bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16);

class DequantizeLinearOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    axis_ = ctx.get_int("axis", 1);
    block_size_ = ctx.get_int("block_size", 0);
    output_dtype_ = static_cast<DType>(ctx.get_int("output_dtype", 0));
    if (block_size_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, "DequantizeLinear: block_size must be >= 0, got ", block_size_);
    if (output_dtype_ != DType::kUndefined && !in_set(kOutputTypes, output_dtype_))
      return ctx.fail(StatusCode::kUnsupported, "DequantizeLinear (opset ", opset_, ") does not support output_dtype ",
                      dtype_name(output_dtype_), " (float32, float16 or bfloat16)");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& scale = ctx.input_type(1);
    const ir::ValueType* zp = ctx.has_input(2) ? &ctx.input_type(2) : nullptr;
    HI_ASSIGN_OR_RETURN(DType out, output_type(x.dtype, scale.dtype, zp ? zp->dtype : DType::kUndefined));
    if (x.is_static() && scale.is_static() && (!zp || zp->is_static())) {
      const Shape zs = zp ? zp->concrete_shape() : Shape{};
      HI_RETURN_IF_ERROR(quant::make_layout("DequantizeLinear", opset_, x.concrete_shape(), scale.concrete_shape(),
                                            zp ? &zs : nullptr, axis_, block_size_, "x_scale")
                             .status());
    }
    ir::ValueType y = x;
    y.dtype = out;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& scale = ctx.in(1);
    const Tensor* zp = ctx.input(2);
    HI_ASSIGN_OR_RETURN(DType out, output_type(x.dtype(), scale.dtype(), zp ? zp->dtype() : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(quant::QuantLayout layout,
                        quant::make_layout("DequantizeLinear", opset_, x.shape(), scale.shape(),
                                           zp ? &zp->shape() : nullptr, axis_, block_size_, "x_scale"));
    if (out == DType::kFloat32 && scale.dtype() == DType::kFloat32) {
      Tensor& y = ctx.output(0, out, x.shape());
      if (quant::run_8bit_fast(layout, x, scale, zp, x.dtype(), [&](int64_t at, int64_t n, float s, int32_t z) {
            if (x.dtype() == DType::kUInt8) quant::dequantize_u8(x.data<uint8_t>() + at, n, s, z, y.data<float>() + at);
            else quant::dequantize_s8(x.data<int8_t>() + at, n, s, z, y.data<float>() + at);
          }))
        return Status::ok();
    }
    // The real value of each element, zero point subtracted, as float32 (the spec's precision).
    std::vector<float> dx(static_cast<size_t>(x.numel()));
    const bool ok = quant::dispatch_codec(x.dtype(), [&]<typename C>() {
      using S = typename C::Storage;
      const S* px = x.data<S>();
      const S* z = zp ? zp->data<S>() : nullptr;
      for (int64_t i = 0; i < x.numel(); ++i)
        dx[static_cast<size_t>(i)] =
            static_cast<float>(C::to_real(px[i]) - (z ? C::to_real(z[layout.scale_index(i)]) : 0.0));
    });
    if (!ok) return quant::quant_type_error("DequantizeLinear", opset_, "x", x.dtype(), QuantUse::kDequantizeInput);
    const std::vector<double> ss = quant::real_values(scale);
    Tensor& y = ctx.output(0, out, x.shape());
    dispatch<kOutputTypes>(out, [&]<typename T>() {
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double s = ss[static_cast<size_t>(layout.scale_index(i))];
        py[i] = static_cast<T>(static_cast<float>(static_cast<double>(dx[static_cast<size_t>(i)]) * s));
      }
    });
    return Status::ok();
  }

 private:
  // Checks the input types for this opset and gives y's type: output_dtype, else x_scale's.
  Result<DType> output_type(DType x, DType scale, DType zp) const {
    if (x != DType::kUndefined && !quant::quant_type_allowed(QuantUse::kDequantizeInput, x, opset_, nullptr))
      return quant::quant_type_error("DequantizeLinear", opset_, "x", x, QuantUse::kDequantizeInput);
    if (zp != DType::kUndefined && x != DType::kUndefined && zp != x)
      return error(StatusCode::kInvalidModel, "DequantizeLinear: x_zero_point is ", dtype_name(zp), " but x is ",
                   dtype_name(x), "; they must have the same type");
    bool scale_ok;
    if (opset_ < 19) scale_ok = scale == DType::kFloat32;
    else scale_ok = in_set(kOutputTypes, scale) || (opset_ >= 24 && scale == DType::kFloat8E8M0);
    if (scale != DType::kUndefined && !scale_ok)
      return error(StatusCode::kUnsupported, "DequantizeLinear (opset ", opset_, ") does not support x_scale of type ",
                   dtype_name(scale));
    if (output_dtype_ != DType::kUndefined) return output_dtype_;
    if (scale == DType::kFloat8E8M0)
      return error(StatusCode::kInvalidModel,
                   "DequantizeLinear: a float8e8m0 x_scale needs the output_dtype attribute");
    return scale;
  }

  int64_t opset_ = 0;
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DType output_dtype_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(DequantizeLinear, DequantizeLinearOp)

}  // namespace hi::ops
