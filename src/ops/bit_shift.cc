// BitShift: x shifted left or right (attribute 'direction') by y bits, with numpy broadcasting.
// Opset 11 takes unsigned integers; opset 28 adds signed ones, where a right shift is arithmetic
// and a left shift works on the two's complement bits. A shift by a negative amount or by the
// type's width or more gives what the fill alone gives: -1 for a right shift of a negative
// value, 0 otherwise (C++ would make it undefined behaviour).
#include <limits>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

template <typename T>
T shift_value(T x, T y, bool left) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = std::numeric_limits<U>::digits;
  if constexpr (std::is_signed_v<T>) {
    if (y < 0 || y >= kBits) return (!left && x < 0) ? T(-1) : T(0);
    const int s = static_cast<int>(y);
    if (left) return static_cast<T>(static_cast<U>(static_cast<U>(x) << s));
    return static_cast<T>(x >> s);  // arithmetic (sign-extending) in C++20
  } else {
    if (y >= static_cast<T>(kBits)) return T(0);
    const int s = static_cast<int>(y);
    return static_cast<T>(left ? static_cast<T>(x << s) : static_cast<T>(x >> s));
  }
}

class BitShiftOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const std::string dir = ctx.get_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT")
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"", dir,
                      "\"");
    left_ = dir == "LEFT";
    types_ = ctx.opset() >= 28 ? kIntTypes : kUnsignedIntTypes;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    return infer_broadcast(ctx, types_);
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& y = ctx.in(1);
    if (x.dtype() != y.dtype())
      return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " and Y ", y.type_string(),
                   " must share a type");
    if (!in_set(types_, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    const bool left = left_;
    return run_binary<kIntTypes>(ctx, [left]<typename T>(T a, T b) { return shift_value<T>(a, b, left); });
  }

 private:
  bool left_ = true;
  uint64_t types_ = kUnsignedIntTypes;
};

}  // namespace

HI_REGISTER_OP(BitShift, BitShiftOp)

}  // namespace hi::ops
