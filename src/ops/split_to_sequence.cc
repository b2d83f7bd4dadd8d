// SplitToSequence: cuts a tensor along `axis` into a sequence. `split` may be a scalar (chunks
// of that size, the last one smaller), a 1-D list of sizes summing to the axis's size, or absent
// (chunks of 1, with the axis removed when keepdims = 0; keepdims is ignored with `split`).
// Any element type.
#include "ops/copy_util.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class SplitToSequenceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    keepdims_ = ctx.get_int("keepdims", 1);
    if (keepdims_ != 0 && keepdims_ != 1)
      return ctx.fail(StatusCode::kInvalidModel, "keepdims must be 0 or 1, got ", keepdims_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() < 1 || ctx.num_inputs() > 2 || !ctx.has_input(0))
      return error(StatusCode::kInvalidModel, "SplitToSequence takes 1 or 2 inputs (input, split), the node has ",
                   ctx.num_inputs());
    HI_RETURN_IF_ERROR(check_tensor_type(ctx, 0, "input"));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    const bool has_split = ctx.has_input(1);
    if (has_split) {
      HI_RETURN_IF_ERROR(check_tensor_type(ctx, 1, "split"));
      HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "split"));
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, sequence_of(ir::ValueType::tensor_unknown_shape(x.dtype)));
      return Status::ok();
    }
    if (x.rank() == 0) return error(StatusCode::kInvalidModel, "cannot split a scalar");
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    std::vector<ir::Dim> dims = *x.shape;
    if (has_split) dims[static_cast<size_t>(axis)] = ir::Dim{};  // chunk sizes may differ
    else if (keepdims_) dims[static_cast<size_t>(axis)] = ir::Dim::known(1);
    else dims.erase(dims.begin() + axis);
    ctx.set_output_type(0, sequence_of(ir::ValueType::tensor(x.dtype, std::move(dims))));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor* x = ctx.input(0);
    if (!x) return error(StatusCode::kInvalidArgument, "input must be a tensor");
    if (!is_movable_dtype(x->dtype()))
      return error(StatusCode::kUnsupported, "SplitToSequence does not support input type ", dtype_name(x->dtype()));
    if (x->rank() == 0) return error(StatusCode::kInvalidArgument, "cannot split a scalar");
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x->rank()));
    const int64_t dim = x->dim(axis);
    const Tensor* split = ctx.input(1);
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, chunk_sizes(split, dim));
    const auto a = static_cast<size_t>(axis);
    const int64_t outer = dims_product(x->shape(), 0, a);
    const int64_t inner = dims_product(x->shape(), a + 1, x->shape().size());
    std::vector<Tensor> out;
    int64_t start = 0;  // first index along the axis of this chunk
    for (int64_t len : sizes) {
      Shape shape = x->shape();
      shape[a] = len;
      Tensor t = Tensor::empty(x->dtype(), shape);
      dispatch_storage(x->dtype(), [&]<typename U>() {
        const U* src = storage<U>(*x);
        U* dst = storage<U>(t);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < len * inner; ++j) dst[o * len * inner + j] = src[(o * dim + start) * inner + j];
      });
      if (!split && !keepdims_) {
        shape.erase(shape.begin() + axis);
        t = t.reshaped(shape);
      }
      out.push_back(std::move(t));
      start += len;
    }
    ctx.set_output_value(0, Value::of_sequence(std::move(out)));
    return Status::ok();
  }

 private:
  // The chunk sizes along an axis of size `dim` (see the file comment).
  static Result<std::vector<int64_t>> chunk_sizes(const Tensor* split, int64_t dim) {
    if (!split) return std::vector<int64_t>(static_cast<size_t>(dim), 1);
    if (split->dtype() != DType::kInt32 && split->dtype() != DType::kInt64)
      return error(StatusCode::kInvalidArgument, "split must be int32 or int64, got ", split->type_string());
    if (split->rank() > 1)
      return error(StatusCode::kInvalidArgument, "split must be a scalar or 1-D, got ", split->type_string());
    if (split->rank() == 0) {
      const int64_t chunk = split->as_int64(0);
      if (chunk <= 0) return error(StatusCode::kInvalidArgument, "split is ", chunk, "; a chunk size must be positive");
      std::vector<int64_t> sizes;
      for (int64_t left = dim; left > 0; left -= chunk) sizes.push_back(std::min(chunk, left));
      return sizes;
    }
    std::vector<int64_t> sizes = split->to_int64_vector();
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0)
        return error(StatusCode::kInvalidArgument, "split ", shape_to_string(sizes), " has a negative size ", s);
      if (s > dim - sum)
        return error(StatusCode::kInvalidArgument, "split ", shape_to_string(sizes),
                     " sums to more than the axis's size ", dim);
      sum += s;
    }
    if (sum != dim)
      return error(StatusCode::kInvalidArgument, "split ", shape_to_string(sizes), " sums to ", sum,
                   " but the axis has size ", dim);
    return sizes;
  }

  int64_t axis_ = 0;
  int64_t keepdims_ = 1;
};

}  // namespace

HI_REGISTER_OP(SplitToSequence, SplitToSequenceOp)

}  // namespace hi::ops
