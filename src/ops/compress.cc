// Compress (opset 9): keeps the slices along 'axis' whose entry in the 1-D bool 'condition' is
// true (numpy.compress). Without 'axis' the input is flattened first. A condition shorter than
// the axis counts as false for the rest; a longer one may only hold false past the end. Any
// element type.
#include "ops/copy_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class CompressOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    has_axis_ = ctx.has("axis");
    axis_ = ctx.get_int("axis", 0);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& cond = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (cond.dtype != DType::kUndefined && cond.dtype != DType::kBool)
      return error(StatusCode::kInvalidModel, "condition must be bool, got ", cond.to_string());
    if (cond.has_rank() && cond.rank() != 1)
      return error(StatusCode::kInvalidModel, "condition must be 1-D, got ", cond.to_string());
    // The kept count, when the condition is a constant and the axis length known.
    auto kept = [&](const ir::Dim& len) -> Result<ir::Dim> {
      const Tensor* c = ctx.input_value(1);
      if (!c || !len.is_known()) return ir::Dim{};
      HI_ASSIGN_OR_RETURN(const int64_t n, count_kept(*c, len.value));
      return ir::Dim::known(n);
    };
    if (!has_axis_) {
      ir::Dim len;
      if (x.is_static()) len = ir::Dim::known(shape_numel(x.concrete_shape()));
      HI_ASSIGN_OR_RETURN(const ir::Dim d, kept(len));
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {d}));
      return Status::ok();
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() == 0)
      return error(StatusCode::kInvalidModel, "input must have rank >= 1 with 'axis', got ", x.to_string());
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    std::vector<ir::Dim> out = *x.shape;
    HI_ASSIGN_OR_RETURN(out[static_cast<size_t>(axis)], kept(out[static_cast<size_t>(axis)]));
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& cond = ctx.in(1);
    if (cond.dtype() != DType::kBool || cond.rank() != 1)
      return error(StatusCode::kInvalidArgument, "condition must be a 1-D bool tensor, got ", cond.type_string());
    // Without an axis, the flattened input: one "axis" of numel elements.
    const Shape shape = has_axis_ ? x.shape() : Shape{x.numel()};
    if (has_axis_ && x.rank() == 0)
      return error(StatusCode::kInvalidArgument, "input must have rank >= 1 with 'axis', got ", x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(has_axis_ ? axis_ : 0, static_cast<int64_t>(shape.size())));
    const auto a = static_cast<size_t>(axis);
    const int64_t len = shape[a];
    HI_ASSIGN_OR_RETURN(const int64_t kept, count_kept(cond, len));
    Shape out_shape = shape;
    out_shape[a] = kept;
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    const int64_t outer = dims_product(shape, 0, a), inner = dims_product(shape, a + 1, shape.size());
    const bool* c = cond.data<bool>();
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          for (int64_t o = 0; o < outer; ++o) {
            int64_t k = 0;
            for (int64_t j = 0; j < len; ++j) {
              if (j >= cond.numel() || !c[j]) continue;
              for (int64_t i = 0; i < inner; ++i) dst[(o * kept + k) * inner + i] = src[(o * len + j) * inner + i];
              ++k;
            }
          }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // The number of true entries among the first `len`; an error for a true entry past `len`.
  static Result<int64_t> count_kept(const Tensor& cond, int64_t len) {
    const bool* c = cond.data<bool>();
    int64_t n = 0;
    for (int64_t j = 0; j < cond.numel(); ++j) {
      if (!c[j]) continue;
      if (j >= len)
        return error(StatusCode::kInvalidArgument, "condition ", cond.type_string(), " is true at index ", j,
                     ", past the end of the compressed axis (length ", len, ")");
      ++n;
    }
    return n;
  }

  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(Compress, CompressOp)

}  // namespace hi::ops
