// Mod: elementwise remainder with numpy broadcasting. fmod=0 (the default, integers only) gives
// the remainder with the divisor's sign (Python's %); fmod=1 gives C's fmod, with the dividend's
// sign (for integers too). Floating-point inputs need fmod=1, as the spec says. An integer
// division by zero is an error (it has no defined result); float division by zero gives NaN.
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kModTypes = kNumericTypes;

// a % b for integers, b != 0, without the overflow of lowest() % -1.
template <typename T>
T int_fmod(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return T(0);
  return static_cast<T>(a % b);
}

// The remainder with the divisor's sign.
template <typename T>
T int_mod(T a, T b) {
  const T r = int_fmod(a, b);
  if constexpr (std::is_signed_v<T>)
    if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
  return r;
}

class ModOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t f = ctx.get_int("fmod", 0);
    if (f != 0 && f != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'fmod' must be 0 or 1, got ", f);
    fmod_ = f == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    HI_RETURN_IF_ERROR(infer_broadcast(ctx, kModTypes));
    const DType t = ctx.output_type(0).dtype;
    if (!fmod_ && dtype_is_float(t))
      return error(StatusCode::kInvalidModel, "Mod of ", dtype_name(t), " needs fmod=1 (fmod=0 is for integers only)");
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    if (a.dtype() != b.dtype())
      return error(StatusCode::kInvalidArgument, "A ", a.type_string(), " and B ", b.type_string(),
                   " must share a type");
    if (!fmod_ && dtype_is_float(a.dtype()))
      return error(StatusCode::kInvalidArgument, "Mod of ", dtype_name(a.dtype()), " needs fmod=1");
    if (dtype_is_integer(a.dtype())) {
      HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(a.shape(), b.shape()));
      if (shape_numel(shape) > 0)
        for (int64_t i = 0; i < b.numel(); ++i)
          if (b.as_int64(i) == 0)
            return error(StatusCode::kInvalidArgument, "integer division by zero: B ", b.type_string(),
                         " has 0 at element ", i);
    }
    const bool f = fmod_;
    return run_binary<kModTypes>(ctx, [f]<typename C>(C x, C y) -> C {
      if constexpr (std::is_floating_point_v<C>) return std::fmod(x, y);
      else return f ? int_fmod(x, y) : int_mod(x, y);
    });
  }

 private:
  bool fmod_ = false;
};

}  // namespace

HI_REGISTER_OP(Mod, ModOp)

}  // namespace hi::ops
