// PRelu: x for x >= 0, slope * x otherwise, with slope broadcast (unidirectionally) to x. Before
// opset 7 a 1-D slope of C elements is per channel (dim 1), as Caffe2 defined it; one element is
// shared by all.
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTypes =
    kFloatTypes | bit(DType::kInt32) | bit(DType::kInt64) | bit(DType::kUInt32) | bit(DType::kUInt64);

class PReluOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    per_channel_ = ctx.opset() < 7;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& slope = ctx.input_type(1);
    if (x.dtype != DType::kUndefined && !in_set(kTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (x.dtype != DType::kUndefined && slope.dtype != DType::kUndefined && slope.dtype != x.dtype)
      return error(StatusCode::kInvalidModel, "X is ", dtype_name(x.dtype), " but slope is ", dtype_name(slope.dtype));
    if (x.has_rank()) {
      ir::ValueType s = slope;
      if (per_channel_ && s.has_rank() && s.rank() == 1 && x.rank() >= 2 &&
          !((*s.shape)[0].is_known() && (*s.shape)[0].value == 1)) {
        s.shape->resize(static_cast<size_t>(x.rank() - 1), ir::Dim::known(1));
        if ((*s.shape)[0].is_known() && (*x.shape)[1].is_known() && (*s.shape)[0].value != (*x.shape)[1].value)
          return error(StatusCode::kInvalidModel, "slope ", slope.to_string(),
                       " must have 1 or C = ", (*x.shape)[1].value, " elements for X ", x.to_string(),
                       " (per channel before opset 7)");
      }
      HI_RETURN_IF_ERROR(check_unidirectional(s, *x.shape, "slope", "X"));
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& slope = ctx.in(1);
    if (slope.dtype() != x.dtype())
      return error(StatusCode::kInvalidArgument, "X is ", x.type_string(), " but slope is ", slope.type_string());
    // Per channel before opset 7: [C] is read as [C, 1, ..., 1].
    Shape slope_shape = slope.shape();
    if (per_channel_ && slope.rank() == 1 && slope.numel() != 1 && x.rank() >= 2) {
      if (slope.dim(0) != x.dim(1))
        return error(StatusCode::kInvalidArgument, "slope ", slope.type_string(), " must have 1 or C = ", x.dim(1),
                     " elements for X ", x.type_string(), " (per channel before opset 7)");
      slope_shape.resize(static_cast<size_t>(x.rank() - 1), 1);
    }
    HI_RETURN_IF_ERROR(check_unidirectional(slope_shape, x.shape(), "slope", "X"));
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      const T* ps = slope.data<T>();
      T* py = y.data<T>();
      for_each_broadcast(x.shape(), x.shape(), slope_shape, [&](int64_t o, int64_t ix, int64_t is) {
        const C v = static_cast<C>(px[ix]);
        py[o] = v < C(0) ? static_cast<T>(wrap_mul(static_cast<C>(ps[is]), v)) : px[ix];
      });
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  bool per_channel_ = false;
};

}  // namespace

HI_REGISTER_OP(PRelu, PReluOp)

}  // namespace hi::ops
