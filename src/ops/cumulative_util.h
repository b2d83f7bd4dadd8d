// CumSum and CumProd: a running sum or product along one axis (a scalar int32/int64 input),
// optionally exclusive (each output leaves out its own element) and/or reversed (running from the
// end). Floats accumulate in double and round once per element; integers wrap like numpy.
#pragma once

#include <type_traits>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {

constexpr uint64_t kCumulativeTypes =
    kFloatTypes | bit(DType::kInt32) | bit(DType::kInt64) | bit(DType::kUInt32) | bit(DType::kUInt64);

// Step is default-constructible with
//   template <typename A> static A identity();         0 or 1
//   template <typename A> static A combine(A acc, A x);  acc + x or acc * x (wrapping for integers)
template <typename Step>
class CumulativeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t e = ctx.get_int("exclusive", 0), r = ctx.get_int("reverse", 0);
    if (e != 0 && e != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'exclusive' must be 0 or 1, got ", e);
    if (r != 0 && r != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'reverse' must be 0 or 1, got ", r);
    exclusive_ = e == 1;
    reverse_ = r == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kCumulativeTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype);
    HI_RETURN_IF_ERROR(
        check_scalar_type(ctx.node(), ctx.input_type(1), bit(DType::kInt32) | bit(DType::kInt64), "axis"));
    if (x.has_rank() && x.rank() == 0)
      return error(StatusCode::kInvalidModel, "input must have rank >= 1, got ", x.to_string());
    if (const Tensor* a = ctx.input_value(1); a && x.has_rank()) {
      HI_ASSIGN_OR_RETURN(const int64_t axis, scalar_int(*a, "axis"));
      HI_RETURN_IF_ERROR(normalize_axis(axis, x.rank()).status());
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() == 0) return error(StatusCode::kInvalidArgument, "input must have rank >= 1, got ", x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t raw_axis, scalar_int(ctx.in(1), "axis"));
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(raw_axis, x.rank()));
    const auto a = static_cast<size_t>(axis);
    const int64_t outer = dims_product(x.shape(), 0, a), n = x.dim(axis);
    const int64_t inner = dims_product(x.shape(), a + 1, x.shape().size());
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    if (!dispatch<kCumulativeTypes>(x.dtype(), [&]<typename T>() {
          // double for every float type; the integer type itself otherwise (wrapping).
          using A = std::conditional_t<kIsFloat<T>, double, T>;
          const T* px = x.data<T>();
          T* py = y.data<T>();
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
              A acc = Step::template identity<A>();
              for (int64_t s = 0; s < n; ++s) {
                const int64_t j = reverse_ ? n - 1 - s : s;
                const int64_t off = (o * n + j) * inner + i;
                const A v = static_cast<A>(static_cast<compute_t<T>>(px[off]));
                if (exclusive_) {
                  py[off] = static_cast<T>(static_cast<compute_t<T>>(acc));
                  acc = Step::combine(acc, v);
                } else {
                  acc = Step::combine(acc, v);
                  py[off] = static_cast<T>(static_cast<compute_t<T>>(acc));
                }
              }
            }
        }))
      return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace hi::ops
