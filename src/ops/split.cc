// Split: cuts a tensor along an axis into the node's outputs (any element type). Sizes come from
// the 'split' attribute (opset 1-12; opset 1 also takes a second input), the 'split' input
// (opset 13+), or are equal parts: exact division before opset 18, and from opset 18 with
// 'num_outputs' ceil(dim / n) each with a smaller last chunk.
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class SplitOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    axis_ = ctx.get_int("axis", 0);
    if (opset_ < 13 && ctx.has("split")) split_attr_ = ctx.get_ints("split");
    if (opset_ >= 18 && ctx.has("num_outputs")) {
      num_outputs_ = ctx.get_int("num_outputs", 0);
      if (*num_outputs_ < 1)
        return ctx.fail(StatusCode::kInvalidModel, "num_outputs must be positive, got ", *num_outputs_);
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, opset_ == 1 || opset_ >= 13 ? 2 : 1, static_cast<size_t>(-1)));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    const int64_t n = static_cast<int64_t>(ctx.num_outputs());
    HI_RETURN_IF_ERROR(check_outputs(n));
    std::optional<std::vector<int64_t>> split = split_attr_;
    bool split_unknown = false;
    if (split_input_index() < ctx.num_inputs() && ctx.has_input(split_input_index())) {
      HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(split_input_index()), "split"));
      if (const Tensor* v = ctx.input_value(split_input_index())) {
        HI_ASSIGN_OR_RETURN(auto s, int_list_checked(*v, "split"));
        split = std::move(s);
      } else {
        split_unknown = true;
      }
    }
    if (!x.has_rank()) {
      for (int64_t i = 0; i < n; ++i)
        ctx.set_output_type(static_cast<size_t>(i), ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    if (x.rank() == 0) return error(StatusCode::kInvalidModel, "cannot split a scalar");
    const ir::Dim dim = (*x.shape)[static_cast<size_t>(axis)];
    std::vector<ir::Dim> sizes(static_cast<size_t>(n));  // unknown unless computed below
    if (split) {
      HI_RETURN_IF_ERROR(check_split(*split, n, dim.is_known() ? dim.value : -1));
      for (int64_t i = 0; i < n; ++i) sizes[static_cast<size_t>(i)] = ir::Dim::known((*split)[static_cast<size_t>(i)]);
    } else if (!split_unknown && dim.is_known()) {
      HI_ASSIGN_OR_RETURN(auto s, equal_parts(dim.value, n));
      for (int64_t i = 0; i < n; ++i) sizes[static_cast<size_t>(i)] = ir::Dim::known(s[static_cast<size_t>(i)]);
    }
    for (int64_t i = 0; i < n; ++i) {
      std::vector<ir::Dim> dims = *x.shape;
      dims[static_cast<size_t>(axis)] = sizes[static_cast<size_t>(i)];
      ctx.set_output_type(static_cast<size_t>(i), ir::ValueType::tensor(x.dtype, std::move(dims)));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const int64_t n = static_cast<int64_t>(ctx.num_outputs());
    HI_RETURN_IF_ERROR(check_outputs(n));
    if (x.rank() == 0) return error(StatusCode::kInvalidArgument, "cannot split a scalar");
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t dim = x.dim(axis);
    std::vector<int64_t> sizes;
    const Tensor* split_in = ctx.input(split_input_index());
    if (split_in || split_attr_) {
      if (split_in) {
        HI_ASSIGN_OR_RETURN(sizes, int_list_checked(*split_in, "split"));
      } else {
        sizes = *split_attr_;
      }
      HI_RETURN_IF_ERROR(check_split(sizes, n, dim));
    } else {
      HI_ASSIGN_OR_RETURN(sizes, equal_parts(dim, n));
    }
    const auto uaxis = static_cast<size_t>(axis);
    const int64_t outer = dims_product(x.shape(), 0, uaxis);
    const int64_t inner = dims_product(x.shape(), uaxis + 1, x.shape().size());
    int64_t start = 0;  // first index along the axis of this output
    for (int64_t i = 0; i < n; ++i) {
      const int64_t len = sizes[static_cast<size_t>(i)];
      Shape shape = x.shape();
      shape[uaxis] = len;
      Tensor& out = ctx.output(static_cast<size_t>(i), x.dtype(), shape);
      if (!dispatch_storage(x.dtype(), [&]<typename U>() {
            const U* src = storage<U>(x);
            U* dst = storage<U>(out);
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t j = 0; j < len * inner; ++j) dst[o * len * inner + j] = src[(o * dim + start) * inner + j];
          }))
        return check_movable(ctx.node(), x.dtype());
      start += len;
    }
    return Status::ok();
  }

 private:
  // Where the 'split' input is read from (opset 1 and 13+); an index past the inputs otherwise.
  size_t split_input_index() const { return opset_ == 1 || opset_ >= 13 ? 1 : 1000; }

  Status check_outputs(int64_t n) const {
    if (n < 1) return error(StatusCode::kInvalidModel, "Split needs at least one output");
    if (num_outputs_ && *num_outputs_ != n)
      return error(StatusCode::kInvalidModel, "num_outputs is ", *num_outputs_, " but the node has ", n, " outputs");
    return Status::ok();
  }

  // `dim` < 0: not known yet.
  static Status check_split(const std::vector<int64_t>& split, int64_t n, int64_t dim) {
    if (static_cast<int64_t>(split.size()) != n)
      return error(StatusCode::kInvalidModel, "split ", shape_to_string(split), " has ", split.size(),
                   " entries but the node has ", n, " outputs");
    int64_t sum = 0;
    for (int64_t s : split) {
      if (s < 0) return error(StatusCode::kInvalidModel, "split ", shape_to_string(split), " has a negative size ", s);
      sum += s;
    }
    if (dim >= 0 && sum != dim)
      return error(StatusCode::kInvalidModel, "split ", shape_to_string(split), " sums to ", sum,
                   " but the axis has size ", dim);
    return Status::ok();
  }

  // Equal parts of `dim` for n outputs (see the file comment).
  Result<std::vector<int64_t>> equal_parts(int64_t dim, int64_t n) const {
    if (opset_ < 18) {
      if (dim % n != 0)
        return error(StatusCode::kInvalidModel, "the axis has size ", dim, ", which does not split evenly into ", n,
                     " outputs (give 'split' sizes)");
      return std::vector<int64_t>(static_cast<size_t>(n), dim / n);
    }
    const int64_t chunk = (dim + n - 1) / n;
    const int64_t last = dim - chunk * (n - 1);
    if (last < 0)
      return error(StatusCode::kInvalidModel, "the axis has size ", dim, ", too small for ", n, " chunks of ", chunk);
    std::vector<int64_t> s(static_cast<size_t>(n), chunk);
    s.back() = last;
    return s;
  }

  int64_t opset_ = 18;
  int64_t axis_ = 0;
  std::optional<std::vector<int64_t>> split_attr_;
  std::optional<int64_t> num_outputs_;
};

}  // namespace

HI_REGISTER_OP(Split, SplitOp)

}  // namespace hi::ops
