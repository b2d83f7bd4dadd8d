// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor, per
// axis (opset 13) or in blocks along an axis (opset 21). The division happens in the precision
// of y_scale's type, or of the `precision` attribute (opset 23); float8 targets honour `saturate`.
#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/quantize_loops.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

using quant::QuantUse;

class QuantizeLinearOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    axis_ = ctx.get_int("axis", 1);
    saturate_ = ctx.get_int("saturate", 1) != 0;
    block_size_ = ctx.get_int("block_size", 0);
    output_dtype_ = static_cast<DType>(ctx.get_int("output_dtype", 0));
    precision_ = static_cast<DType>(ctx.get_int("precision", 0));
    if (block_size_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, "QuantizeLinear: block_size must be >= 0, got ", block_size_);
    if (output_dtype_ != DType::kUndefined &&
        !quant::quant_type_allowed(QuantUse::kQuantizeOutput, output_dtype_, opset_, nullptr))
      return ctx.fail(StatusCode::kUnsupported, quant::quant_type_error("QuantizeLinear", opset_, "output_dtype",
                                                                        output_dtype_, QuantUse::kQuantizeOutput)
                                                    .message());
    if (precision_ != DType::kUndefined &&
        !in_set(bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16), precision_))
      return ctx.fail(StatusCode::kUnsupported, "QuantizeLinear (opset ", opset_, ") does not support precision ",
                      dtype_name(precision_), " (float32, float16 or bfloat16)");
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
      HI_RETURN_IF_ERROR(quant::make_layout("QuantizeLinear", opset_, x.concrete_shape(), scale.concrete_shape(),
                                            zp ? &zs : nullptr, axis_, block_size_, "y_scale")
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
                        quant::make_layout("QuantizeLinear", opset_, x.shape(), scale.shape(),
                                           zp ? &zp->shape() : nullptr, axis_, block_size_, "y_scale"));
    Tensor& y = ctx.output(0, out, x.shape());
    // Without the attribute, y_scale's type sets the precision; int32 and float8e8m0 scales
    // divide in float32 (a float8e8m0 scale, a power of two, is exact there).
    DType p = precision_;
    if (p == DType::kUndefined) p = in_set(kFloatTypes, scale.dtype()) ? scale.dtype() : DType::kFloat32;
    if (x.dtype() == DType::kFloat32 && scale.dtype() == DType::kFloat32 && p == DType::kFloat32 &&
        quant::run_8bit_fast(layout, x, scale, zp, out, [&](int64_t at, int64_t n, float s, int32_t z) {
          if (out == DType::kUInt8) quant::quantize_to_u8(x.data<float>() + at, n, s, z, y.data<uint8_t>() + at);
          else quant::quantize_to_s8(x.data<float>() + at, n, s, z, y.data<int8_t>() + at);
        }))
      return Status::ok();
    const std::vector<double> xs = quant::real_values(x), ss = quant::real_values(scale);
    const bool ok = quant::dispatch_codec(out, [&]<typename C>() {
      using S = typename C::Storage;
      const S* z = zp ? zp->data<S>() : nullptr;
      S* py = y.data<S>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t s = layout.scale_index(i);
        const float q = quant::round_to(p, quant::round_to(p, static_cast<float>(xs[static_cast<size_t>(i)])) /
                                               quant::round_to(p, static_cast<float>(ss[static_cast<size_t>(s)])));
        py[i] = C::quantize(q, z ? z[s] : S(), saturate_);
      }
    });
    if (!ok) return quant::quant_type_error("QuantizeLinear", opset_, "y", out, QuantUse::kQuantizeOutput);
    return Status::ok();
  }

 private:
  // Checks the input types for this opset and gives y's type: y_zero_point's, else output_dtype,
  // else uint8.
  Result<DType> output_type(DType x, DType scale, DType zp) const {
    const uint64_t x_types = opset_ >= 19 ? kFloatTypes & ~bit(DType::kFloat64) : bit(DType::kFloat32);
    if (x != DType::kUndefined && !in_set(x_types | bit(DType::kInt32), x))
      return error(StatusCode::kUnsupported, "QuantizeLinear (opset ", opset_, ") does not support x of type ",
                   dtype_name(x));
    if (scale != DType::kUndefined) {
      bool scale_ok;
      if (opset_ < 19) scale_ok = scale == DType::kFloat32;
      else if (opset_ < 23) scale_ok = scale == x || x == DType::kUndefined;  // one type T1 for x and y_scale
      else
        scale_ok = in_set(kFloatTypes & ~bit(DType::kFloat64), scale) || scale == DType::kInt32 ||
                   (opset_ >= 24 && scale == DType::kFloat8E8M0);
      if (!scale_ok)
        return error(StatusCode::kUnsupported, "QuantizeLinear (opset ", opset_, ") does not support y_scale of type ",
                     dtype_name(scale), " with x of type ", dtype_name(x));
    }
    if (zp == DType::kUndefined) return output_dtype_ != DType::kUndefined ? output_dtype_ : DType::kUInt8;
    if (!quant::quant_type_allowed(QuantUse::kQuantizeOutput, zp, opset_, nullptr))
      return quant::quant_type_error("QuantizeLinear", opset_, "y_zero_point", zp, QuantUse::kQuantizeOutput);
    if (output_dtype_ != DType::kUndefined && output_dtype_ != zp)
      return error(StatusCode::kInvalidModel, "QuantizeLinear: output_dtype ", dtype_name(output_dtype_),
                   " differs from y_zero_point's type ", dtype_name(zp));
    return zp;
  }

  int64_t opset_ = 0;
  int64_t axis_ = 1;
  bool saturate_ = true;
  int64_t block_size_ = 0;
  DType output_dtype_ = DType::kUndefined;
  DType precision_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(QuantizeLinear, QuantizeLinearOp)

}  // namespace hi::ops
