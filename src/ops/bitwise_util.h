// Shared shape of the bitwise ops (BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot): integer
// tensors of one type, numpy broadcasting for the binary ones, the result in the input type.
#pragma once

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {

// out = Fn{}(a, b) over the integer types, with broadcasting.
template <typename Fn>
class BitwiseBinaryOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    return infer_broadcast(ctx, kIntTypes);
  }
  Status run(RunContext& ctx) const override {
    if (ctx.in(0).dtype() != ctx.in(1).dtype())
      return error(StatusCode::kInvalidArgument, "inputs must share a type, got ", ctx.in(0).type_string(), " and ",
                   ctx.in(1).type_string());
    return run_binary<kIntTypes>(ctx, Fn{});
  }
};

// out = Fn{}(x) over the integer types.
template <typename Fn>
class BitwiseUnaryOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    return infer_same_as_input(ctx, kIntTypes);
  }
  Status run(RunContext& ctx) const override { return run_unary<kIntTypes>(ctx, Fn{}); }
};

}  // namespace hi::ops
