// Clip: min(max(x, lo), hi). Before opset 11 the bounds are float attributes; from 11 they are
// optional scalar inputs of x's type (integer types from opset 12). Missing bounds are the
// type's lowest and highest values. When lo > hi every element becomes hi (as numpy.clip).
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class ClipOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    bounds_are_inputs_ = ctx.opset() >= 11;
    if (!bounds_are_inputs_) {
      min_ = ctx.get_float("min", std::numeric_limits<float>::lowest());
      max_ = ctx.get_float("max", std::numeric_limits<float>::max());
    } else if (ctx.has("min") || ctx.has("max")) {
      return ctx.fail(StatusCode::kInvalidModel,
                      "min and max are inputs from opset 11, not attributes (the model imports opset ", ctx.opset(),
                      ")");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, bounds_are_inputs_ ? 3 : 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    const uint64_t types = bounds_are_inputs_ ? kNumericTypes : kFloatTypes;
    if (x.dtype != DType::kUndefined && !in_set(types, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    for (size_t i = 1; i < 3; ++i) {
      if (!ctx.has_input(i)) continue;
      const ir::ValueType& b = ctx.input_type(i);
      if (b.dtype != DType::kUndefined && x.dtype != DType::kUndefined && b.dtype != x.dtype)
        return error(StatusCode::kInvalidModel, kBoundName[i], " is ", dtype_name(b.dtype), " but input is ",
                     dtype_name(x.dtype));
      if (b.is_static() && shape_numel(b.concrete_shape()) != 1)
        return error(StatusCode::kInvalidModel, kBoundName[i], " must be a scalar, got ", b.to_string());
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor* bound[3] = {nullptr, ctx.input(1), ctx.input(2)};
    for (size_t i = 1; i < 3; ++i) {
      if (!bound[i]) continue;
      if (bound[i]->dtype() != x.dtype())
        return error(StatusCode::kInvalidArgument, kBoundName[i], " is ", bound[i]->type_string(), " but input is ",
                     x.type_string());
      if (bound[i]->numel() != 1)
        return error(StatusCode::kInvalidArgument, kBoundName[i], " must be a scalar, got ", bound[i]->type_string());
    }
    // Before opset 11 the bounds are float attributes: float inputs only.
    if (!bounds_are_inputs_ && !in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      C lo, hi;
      if (!bounds_are_inputs_) {
        lo = static_cast<C>(min_);
        hi = static_cast<C>(max_);
      } else {
        lo = bound[1] ? static_cast<C>(bound[1]->data<T>()[0]) : std::numeric_limits<C>::lowest();
        hi = bound[2] ? static_cast<C>(bound[2]->data<T>()[0]) : std::numeric_limits<C>::max();
      }
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        C v = static_cast<C>(px[i]);
        // Written so a NaN input stays NaN.
        if (v < lo) v = lo;
        if (v > hi) v = hi;
        py[i] = static_cast<T>(v);
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  static constexpr const char* kBoundName[3] = {"input", "min", "max"};
  bool bounds_are_inputs_ = true;
  float min_ = 0, max_ = 0;
};

}  // namespace

HI_REGISTER_OP(Clip, ClipOp)

}  // namespace hi::ops
