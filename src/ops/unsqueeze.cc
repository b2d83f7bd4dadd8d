// Unsqueeze: inserts dims of size 1 at the given axes of the output; shares the input's storage.
// Axes are a required attribute before opset 13 and a required input from 13.
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class UnsqueezeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    if (opset_ < 13) {
      if (!ctx.has("axes")) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'axes' is missing");
      axes_attr_ = ctx.get_ints("axes");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, opset_ >= 13 ? 2 : 1, opset_ >= 13 ? 2 : 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    std::vector<int64_t> axes = axes_attr_;
    if (opset_ >= 13) {
      if (!ctx.has_input(1)) return error(StatusCode::kInvalidModel, "input 'axes' is required from opset 13");
      const ir::ValueType& a = ctx.input_type(1);
      HI_RETURN_IF_ERROR(check_int_list_type(a, "axes"));
      const Tensor* v = ctx.input_value(1);
      if (!v) {
        const int64_t num_axes = a.is_static() ? shape_numel(a.concrete_shape()) : -1;
        if (x.has_rank() && num_axes >= 0) ctx.set_output_type(0, tensor_of_rank(x.dtype, x.rank() + num_axes));
        else ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
        return Status::ok();
      }
      HI_ASSIGN_OR_RETURN(axes, int_list_checked(*v, "axes"));
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(auto inserted, positions(axes, x.rank()));
    std::vector<ir::Dim> out;
    size_t next = 0;
    for (bool one : inserted) out.push_back(one ? ir::Dim::known(1) : (*x.shape)[next++]);
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    std::vector<int64_t> axes = axes_attr_;
    if (opset_ >= 13) {
      HI_ASSIGN_OR_RETURN(axes, int_list_checked(ctx.in(1), "axes"));
    }
    HI_ASSIGN_OR_RETURN(auto inserted, positions(axes, x.rank()));
    Shape out;
    int64_t next = 0;
    for (bool one : inserted) out.push_back(one ? 1 : x.dim(next++));
    ctx.set_output(0, x.reshaped(out));
    return Status::ok();
  }

 private:
  // For each output dim, whether it is an inserted 1.
  static Result<std::vector<bool>> positions(const std::vector<int64_t>& axes, int64_t in_rank) {
    const int64_t out_rank = in_rank + static_cast<int64_t>(axes.size());
    HI_ASSIGN_OR_RETURN(auto norm, normalize_axes(axes, out_rank, "axes"));
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : norm) inserted[static_cast<size_t>(a)] = true;
    return inserted;
  }

  int64_t opset_ = 13;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

HI_REGISTER_OP(Unsqueeze, UnsqueezeOp)

}  // namespace hi::ops
