// ConcatFromSequence: joins the tensors of a sequence along `axis` (new_axis = 0, like Concat:
// dims other than the axis must match) or stacks them along a new axis (new_axis = 1: shapes
// must match; axis may then be rank, i.e. [-rank - 1, rank]). Any element type.
#include "ops/control_flow_util.h"
#include "ops/copy_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class ConcatFromSequenceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.require_int("axis");
    new_axis_ = ctx.get_int("new_axis", 0);
    if (new_axis_ != 0 && new_axis_ != 1)
      return ctx.fail(StatusCode::kInvalidModel, "new_axis must be 0 or 1, got ", new_axis_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "ConcatFromSequence takes 1 input (input_sequence), the node has ",
                   ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_sequence_type(ctx, 0, "input_sequence"));
    const ir::ValueType elem = sequence_elem_type(ctx.input_type(0));
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), elem.dtype));
    if (!elem.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(elem.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> dims = *elem.shape;
    HI_ASSIGN_OR_RETURN(int64_t axis, output_axis(elem.rank()));
    // The number of tensors (and so the axis's size) is only known at run time.
    if (new_axis_) dims.insert(dims.begin() + axis, ir::Dim{});
    else dims[static_cast<size_t>(axis)] = ir::Dim{};
    ctx.set_output_type(0, ir::ValueType::tensor(elem.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const std::vector<Tensor>* seq, sequence_input(ctx, 0, "input_sequence"));
    if (seq->empty())
      return error(StatusCode::kInvalidArgument, "the sequence is empty; there is nothing to concatenate");
    const Tensor& first = seq->front();
    if (!is_movable_dtype(first.dtype()))
      return error(StatusCode::kUnsupported, "ConcatFromSequence does not support element type ",
                   dtype_name(first.dtype()));
    HI_ASSIGN_OR_RETURN(int64_t axis, output_axis(first.rank()));
    for (size_t i = 1; i < seq->size(); ++i) {
      const Tensor& t = (*seq)[i];
      bool fits = t.dtype() == first.dtype() && t.rank() == first.rank();
      for (int64_t d = 0; fits && d < t.rank(); ++d) fits = t.dim(d) == first.dim(d) || (!new_axis_ && d == axis);
      if (!fits)
        return error(StatusCode::kInvalidArgument, "element ", i, " is ", t.type_string(), " but element 0 is ",
                     first.type_string(),
                     new_axis_ ? "; stacking needs equal shapes" : str("; only axis ", axis, " may differ"));
    }
    if (new_axis_) {
      ctx.set_output(0, stack_along(*seq, axis, false));
      return Status::ok();
    }
    const auto a = static_cast<size_t>(axis);
    Shape out_shape = first.shape();
    out_shape[a] = 0;
    for (const Tensor& t : *seq) out_shape[a] += t.dim(axis);
    Tensor& out = ctx.output(0, first.dtype(), out_shape);
    const int64_t outer = dims_product(out_shape, 0, a);
    const int64_t out_row = dims_product(out_shape, a, out_shape.size());
    dispatch_storage(first.dtype(), [&]<typename U>() {
      U* dst = storage<U>(out);
      int64_t col = 0;  // where this element starts within an output row
      for (const Tensor& t : *seq) {
        const U* src = storage<U>(t);
        const int64_t row = dims_product(t.shape(), a, t.shape().size());
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < row; ++j) dst[o * out_row + col + j] = src[o * row + j];
        col += row;
      }
    });
    return Status::ok();
  }

 private:
  // The axis in the output: [-r, r - 1] for concatenation, [-r - 1, r] when stacking.
  Result<int64_t> output_axis(int64_t elem_rank) const {
    if (!new_axis_ && elem_rank == 0)
      return error(StatusCode::kInvalidModel, "cannot concatenate scalars (use new_axis = 1 to stack them)");
    return normalize_axis(axis_, elem_rank + new_axis_);
  }

  int64_t axis_ = 0;
  int64_t new_axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(ConcatFromSequence, ConcatFromSequenceOp)

}  // namespace hi::ops
