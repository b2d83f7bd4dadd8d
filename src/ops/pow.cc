// Pow: base ^ exponent with broadcasting; the output has the base's type and the exponent may
// have another numeric type (opset 12+). Floats compute in double and round once. Integer
// bases with integer exponents >= 0 multiply exactly (wrapping like numpy); other integer
// results go through double and are truncated and saturated (see ops/convert.h).
// Opsets 1-6: base and exponent share one float type, and the exponent broadcasts only with the
// legacy broadcast/axis attributes (see LegacyBroadcast).
#include "ops/arity.h"
#include "ops/convert.h"
#include "ops/elementwise.h"
#include "ops/numeric.h"

namespace hi::ops {
namespace {

template <typename T>
T int_power(T base, uint64_t exp) {
  // Unsigned arithmetic of at least int's width wraps without undefined behaviour (uint16_t
  // would be promoted to int, where 65535 * 65535 overflows).
  using U = wrap_unsigned_t<T>;
  U result = 1, b = static_cast<U>(static_cast<std::make_unsigned_t<T>>(base));
  while (exp > 0) {
    if (exp & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    exp >>= 1;
  }
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(result));
}

template <typename X, typename Y>
X pow_value(X x, Y y) {
  if constexpr (std::is_integral_v<X> && std::is_integral_v<Y>) {
    if (y >= 0) return int_power<X>(x, static_cast<uint64_t>(y));  // uint64 exponents past 2^63 too
    return saturate_to_int<X>(std::pow(static_cast<double>(x), static_cast<double>(y)));
  } else {
    const double r =
        std::pow(static_cast<double>(static_cast<compute_t<X>>(x)), static_cast<double>(static_cast<compute_t<Y>>(y)));
    return convert_value<X>(r);
  }
}

// Opsets before 7 take float16, float and double only, the same type for both inputs.
constexpr uint64_t kLegacyPowTypes = bit(DType::kFloat16) | bit(DType::kFloat32) | bit(DType::kFloat64);

class PowOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    legacy_.parse(ctx);
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType y = legacy_.align(x, ctx.input_type(1));
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "base");
    if (y.dtype != DType::kUndefined && !in_set(kNumericTypes, y.dtype))
      return unsupported_dtype(ctx.node(), y.dtype, "exponent");
    HI_RETURN_IF_ERROR(check_legacy_types(x.dtype, y.dtype));
    HI_ASSIGN_OR_RETURN(auto out, broadcast_types({&x, &y}, x.dtype));
    ctx.set_output_type(0, std::move(out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor y = legacy_.align(x, ctx.in(1));
    if (!in_set(kNumericTypes, y.dtype())) return unsupported_dtype(ctx.node(), y.dtype(), "exponent");
    HI_RETURN_IF_ERROR(check_legacy_types(x.dtype(), y.dtype()));
    HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(x.shape(), y.shape()));
    Tensor& out = ctx.output(0, x.dtype(), shape);
    if (!dispatch<kNumericTypes>(x.dtype(), [&]<typename X>() {
          dispatch<kNumericTypes>(y.dtype(), [&]<typename Y>() {
            const X* px = x.data<X>();
            const Y* py = y.data<Y>();
            X* po = out.data<X>();
            for_each_broadcast(shape, x.shape(), y.shape(),
                               [&](int64_t o, int64_t ix, int64_t iy) { po[o] = pow_value<X, Y>(px[ix], py[iy]); });
          });
        }))
      return unsupported_dtype(ctx.node(), x.dtype(), "base");
    return Status::ok();
  }

 private:
  Status check_legacy_types(DType x, DType y) const {
    if (opset_ >= 7) return Status::ok();
    for (DType t : {x, y})
      if (t != DType::kUndefined && !in_set(kLegacyPowTypes, t))
        return error(StatusCode::kUnsupported, "Pow opset ", opset_, " does not support type ", dtype_name(t),
                     "; expected float16, float32 or float64");
    if (x != DType::kUndefined && y != DType::kUndefined && x != y)
      return error(StatusCode::kInvalidModel, "Pow opset ", opset_, " needs base and exponent of one type, got ",
                   dtype_name(x), " and ", dtype_name(y));
    return Status::ok();
  }

  int64_t opset_ = 7;
  LegacyBroadcast legacy_;
};

}  // namespace

HI_REGISTER_OP(Pow, PowOp)

}  // namespace hi::ops
