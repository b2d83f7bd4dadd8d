// Elementwise activations: a one-input op over a type set whose function may read attributes.
// Each op's file defines its function object and registers ActivationOp<Types, Fn>.
#pragma once

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {

// Fn is default-constructible and has
//   Status init(InitContext&)            reads and validates the attributes;
//   template <typename C> C operator()(C x) const   the function, in the compute type
//                                        (float for float16/bfloat16/float32, double for float64).
template <uint64_t Types, typename Fn>
class ActivationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    HI_RETURN_IF_ERROR(fn_.init(ctx));
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    return infer_same_as_input(ctx, Types);
  }
  Status run(RunContext& ctx) const override { return run_unary<Types>(ctx, fn_); }
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }  // see run_unary

 private:
  Fn fn_;
};

// Base for functions without attributes (Cos, Softsign, ...).
struct NoAttributes {
  Status init(InitContext&) { return Status::ok(); }
};

}  // namespace hi::ops
