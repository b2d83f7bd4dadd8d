// Equal: bool a == b with broadcasting, over numeric types, bool and (opset 19) string.
#include "ops/arity.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct EqualFn {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};

class EqualOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    return infer_broadcast(ctx, kAllTypes | bit(DType::kString), DType::kBool);
  }
  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    if (a.dtype() != b.dtype())
      return error(StatusCode::kInvalidArgument, "inputs have different types: ", a.type_string(), " and ",
                   b.type_string());
    if (a.dtype() != DType::kString) return run_compare<kAllTypes>(ctx, EqualFn{});
    HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(a.shape(), b.shape()));
    Tensor& out = ctx.output(0, DType::kBool, shape);
    const std::string* pa = a.strings();
    const std::string* pb = b.strings();
    bool* po = out.data<bool>();
    for_each_broadcast(shape, a.shape(), b.shape(),
                       [&](int64_t o, int64_t ia, int64_t ib) { po[o] = pa[ia] == pb[ib]; });
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Equal, EqualOp)

}  // namespace hi::ops
