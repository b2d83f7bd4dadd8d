// Shared reference kernel for the variadic elementwise ops (Sum, Max, Min, Mean): any number of
// inputs of one type, broadcast together numpy style.
#pragma once

#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {

// out[i] = finish(combine(...combine(x0[i], x1[i])..., xk[i]), k + 1), computed in compute_t<T>
// (float for float16/bfloat16) and rounded once at the end.
template <uint64_t Types, typename Combine, typename Finish>
Status run_variadic(RunContext& ctx, Combine combine, Finish finish) {
  const size_t k = ctx.num_inputs();
  if (k == 0) return error(StatusCode::kInvalidArgument, ctx.node().op_type, " needs at least one input");
  const Tensor& first = ctx.in(0);
  Shape shape = first.shape();
  for (size_t i = 1; i < k; ++i) {
    const Tensor& t = ctx.in(i);
    if (t.dtype() != first.dtype())
      return error(StatusCode::kInvalidArgument, "input ", i, " is ", t.type_string(), " but input 0 is ",
                   first.type_string());
    HI_ASSIGN_OR_RETURN(shape, broadcast_shapes(shape, t.shape()));
  }
  Tensor& out = ctx.output(0, first.dtype(), shape);
  std::vector<BroadcastIndex> index;
  for (size_t i = 0; i < k; ++i) index.emplace_back(shape, ctx.in(i).shape());
  const int64_t n = out.numel();
  if (!dispatch<Types>(first.dtype(), [&]<typename T>() {
        using C = compute_t<T>;
        std::vector<const T*> in(k);
        for (size_t i = 0; i < k; ++i) in[i] = ctx.in(i).template data<T>();
        T* po = out.data<T>();
        for (int64_t j = 0; j < n; ++j) {
          C acc = static_cast<C>(in[0][index[0].offset(j)]);
          for (size_t i = 1; i < k; ++i) acc = combine(acc, static_cast<C>(in[i][index[i].offset(j)]));
          po[j] = static_cast<T>(finish(acc, static_cast<int64_t>(k)));
        }
      }))
    return unsupported_dtype(ctx.node(), first.dtype());
  return Status::ok();
}

// A variadic op: inference checks the types and broadcasts the shapes.
template <uint64_t Types, typename Combine, typename Finish>
class VariadicOp : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_variadic_arity(ctx));
    return infer_broadcast(ctx, Types);
  }
  Status run(RunContext& ctx) const override { return run_variadic<Types>(ctx, Combine{}, Finish{}); }
};

// The accumulated value as is.
struct KeepFn {
  template <typename C>
  C operator()(C acc, int64_t) const {
    return acc;
  }
};

// max/min that propagate NaN (like numpy.maximum), for float and integer compute types.
template <typename C>
bool is_nan_value(C v) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
  else return false;
}

}  // namespace hi::ops
