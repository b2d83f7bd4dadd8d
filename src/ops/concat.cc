// Concat: joins tensors of the same type and rank along one axis (any element type).
// The axis defaults to 1 in opset 1-3 and is required from opset 4.
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class ConcatOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (ctx.opset() < 4) axis_ = ctx.get_int("axis", 1);
    else axis_ = ctx.require_int("axis");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_variadic_arity(ctx));
    DType dtype = DType::kUndefined;
    std::optional<std::vector<ir::Dim>> dims;  // merged so far; axis dim summed separately
    int64_t rank = -1;
    int64_t axis = 0;
    bool axis_known = true;
    int64_t axis_sum = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const ir::ValueType& t = ctx.input_type(i);
      HI_RETURN_IF_ERROR(check_movable(ctx.node(), t.dtype));
      if (t.dtype != DType::kUndefined) {
        if (dtype != DType::kUndefined && t.dtype != dtype)
          return error(StatusCode::kInvalidModel, "input ", i, " is ", t.to_string(), " but earlier inputs are ",
                       dtype_name(dtype));
        dtype = t.dtype;
      }
      if (!t.has_rank()) {
        axis_known = false;
        continue;
      }
      if (rank < 0) {
        rank = t.rank();
        if (rank == 0)
          return error(StatusCode::kInvalidModel, "cannot concatenate scalars (input ", i, " is ", t.to_string(), ")");
        HI_ASSIGN_OR_RETURN(axis, normalize_axis(axis_, rank));
        dims = *t.shape;
      } else if (t.rank() != rank) {
        return error(StatusCode::kInvalidModel, "input ", i, " is ", t.to_string(), " but input 0 has rank ", rank,
                     "; all inputs must have the same rank");
      }
      for (int64_t d = 0; d < rank; ++d) {
        const ir::Dim& td = (*t.shape)[static_cast<size_t>(d)];
        ir::Dim& md = (*dims)[static_cast<size_t>(d)];
        if (d == axis) {
          if (td.is_known()) axis_sum += td.value;
          else axis_known = false;
          continue;
        }
        if (td.is_known() && md.is_known() && td.value != md.value)
          return error(StatusCode::kInvalidModel, "input ", i, " is ", t.to_string(), ": dim ", d, " is ", td.value,
                       " but other inputs have ", md.value, " (only axis ", axis, " may differ)");
        if (!md.is_known() && td.is_known()) md = td;
      }
    }
    if (!dims) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(dtype));
      return Status::ok();
    }
    (*dims)[static_cast<size_t>(axis)] = axis_known ? ir::Dim::known(axis_sum) : ir::Dim{};
    ctx.set_output_type(0, ir::ValueType::tensor(dtype, std::move(*dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& first = ctx.in(0);
    const int64_t rank = first.rank();
    if (rank == 0)
      return error(StatusCode::kInvalidArgument, "cannot concatenate scalars (input 0 is ", first.type_string(), ")");
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, rank));
    Shape out_shape = first.shape();
    out_shape[static_cast<size_t>(axis)] = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor* t = ctx.input(i);
      if (!t) return error(StatusCode::kInvalidArgument, "input ", i, " is missing");
      if (t->dtype() != first.dtype())
        return error(StatusCode::kInvalidArgument, "input ", i, " is ", t->type_string(), " but input 0 is ",
                     first.type_string());
      if (t->rank() != rank)
        return error(StatusCode::kInvalidArgument, "input ", i, " is ", t->type_string(), " but input 0 is ",
                     first.type_string(), "; all inputs must have the same rank");
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && t->dim(d) != first.dim(d))
          return error(StatusCode::kInvalidArgument, "input ", i, " is ", t->type_string(), " but input 0 is ",
                       first.type_string(), ": only axis ", axis, " may differ");
      out_shape[static_cast<size_t>(axis)] += t->dim(axis);
    }
    Tensor& out = ctx.output(0, first.dtype(), out_shape);
    const int64_t outer = dims_product(out_shape, 0, static_cast<size_t>(axis));
    const int64_t out_row = dims_product(out_shape, static_cast<size_t>(axis), out_shape.size());
    if (!dispatch_storage(first.dtype(), [&]<typename U>() {
          U* dst = storage<U>(out);
          int64_t col = 0;  // where this input starts within an output row
          for (size_t i = 0; i < ctx.num_inputs(); ++i) {
            const Tensor& t = ctx.in(i);
            const U* src = storage<U>(t);
            const int64_t row = dims_product(t.shape(), static_cast<size_t>(axis), t.shape().size());
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t j = 0; j < row; ++j) dst[o * out_row + col + j] = src[o * row + j];
            col += row;
          }
        }))
      return check_movable(ctx.node(), first.dtype());
    return Status::ok();
  }

 private:
  int64_t axis_ = 1;
};

}  // namespace

HI_REGISTER_OP(Concat, ConcatOp)

}  // namespace hi::ops
