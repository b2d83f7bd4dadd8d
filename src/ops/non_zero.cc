// NonZero (opset 9): the indices of the nonzero elements, as an int64 tensor [rank, count] in
// row-major order (numpy.nonzero stacked). A scalar counts as a 1-element vector (as numpy and
// ONNX Runtime treat it), giving [1, count]. Numeric and bool inputs; NaN is nonzero.
#include <algorithm>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class NonZeroOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kAllTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    const ir::Dim rows = x.has_rank() ? ir::Dim::known(std::max<int64_t>(x.rank(), 1)) : ir::Dim{};
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {rows, ir::Dim{}}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Shape shape = x.rank() == 0 ? Shape{1} : x.shape();
    const int64_t n = x.numel();
    std::vector<int64_t> hits;
    if (!dispatch<kAllTypes>(x.dtype(), [&]<typename T>() {
          const T* p = x.data<T>();
          for (int64_t i = 0; i < n; ++i)
            if (static_cast<compute_t<T>>(p[i]) != compute_t<T>(0)) hits.push_back(i);
        }))
      return unsupported_dtype(ctx.node(), x.dtype());
    const auto rank = static_cast<int64_t>(shape.size());
    const auto count = static_cast<int64_t>(hits.size());
    Tensor& y = ctx.output(0, DType::kInt64, {rank, count});
    int64_t* py = y.data<int64_t>();
    for (int64_t c = 0; c < count; ++c) {
      int64_t rem = hits[static_cast<size_t>(c)];
      for (int64_t d = rank - 1; d >= 0; --d) {
        const int64_t dim = shape[static_cast<size_t>(d)];
        py[d * count + c] = rem % dim;
        rem /= dim;
      }
    }
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(NonZero, NonZeroOp)

}  // namespace hi::ops
