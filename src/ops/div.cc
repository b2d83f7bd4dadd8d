// Div: elementwise a / b with numpy broadcasting. Integer division truncates toward zero; an
// integer division by zero, and the lowest value of a signed type divided by -1 (whose quotient
// does not fit, and which traps on x86), are errors rather than undefined behaviour.
#include <atomic>
#include <limits>

#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class DivOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    legacy_.parse(ctx);
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    return infer_broadcast(ctx, kNumericTypes, DType::kUndefined, &legacy_);
  }
  Status run(RunContext& ctx) const override {
    const Tensor& b = ctx.in(1);
    if (dtype_is_integer(b.dtype()))
      for (int64_t i = 0; i < b.numel(); ++i)
        if (b.as_int64(i) == 0)
          return error(StatusCode::kInvalidArgument, "integer division by zero (divisor element ", i, ")");
    std::atomic<bool> overflow{false};
    HI_RETURN_IF_ERROR(run_binary<kNumericTypes>(
        ctx,
        [&overflow](auto a, auto d) {
          using C = decltype(a);
          if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
            if (d == -1 && a == std::numeric_limits<C>::lowest()) {
              overflow.store(true, std::memory_order_relaxed);
              return a;
            }
          }
          return static_cast<C>(a / d);
        },
        legacy_));
    if (overflow.load())
      return error(StatusCode::kInvalidArgument, "integer division overflow: the lowest ", dtype_name(b.dtype()),
                   " divided by -1 does not fit in ", dtype_name(b.dtype()));
    return Status::ok();
  }

 private:
  LegacyBroadcast legacy_;
};

}  // namespace

HI_REGISTER_OP(Div, DivOp)

}  // namespace hi::ops
