// Squeeze: removes dims of size 1 (the listed axes, or all of them); shares the input's storage.
// Axes are an attribute before opset 13 and an optional input from 13.
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class SqueezeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    if (opset_ < 13 && ctx.has("axes")) axes_attr_ = ctx.get_ints("axes");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, opset_ >= 13 ? 2 : 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    std::optional<std::vector<int64_t>> axes = axes_attr_;
    if (opset_ >= 13 && ctx.has_input(1)) {
      HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "axes"));
      if (const Tensor* v = ctx.input_value(1)) {
        HI_ASSIGN_OR_RETURN(auto a, int_list_checked(*v, "axes"));
        axes = std::move(a);
      } else {
        // Axes known only at run time: the rank follows from their count, if that is known.
        const ir::ValueType& a = ctx.input_type(1);
        if (x.has_rank() && a.is_static() && a.rank() == 1 && a.concrete_shape()[0] > 0)
          ctx.set_output_type(
              0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(static_cast<size_t>(
                                                    std::max<int64_t>(0, x.rank() - a.concrete_shape()[0])))));
        else ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
        return Status::ok();
      }
    }
    if (axes && axes->empty()) axes.reset();  // an empty list squeezes every 1, like no list (as ORT does)
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    const auto& dims = *x.shape;
    std::vector<bool> drop(dims.size(), false);
    if (axes) {
      HI_ASSIGN_OR_RETURN(auto norm, normalize_axes(*axes, x.rank(), "axes"));
      for (int64_t a : norm) {
        const ir::Dim& d = dims[static_cast<size_t>(a)];
        if (d.is_known() && d.value != 1)
          return error(StatusCode::kInvalidModel, "cannot squeeze axis ", a, " of ", x.to_string(), ": its size is ",
                       d.value, ", not 1");
        drop[static_cast<size_t>(a)] = true;
      }
    } else {
      for (size_t i = 0; i < dims.size(); ++i) {
        if (!dims[i].is_known()) {  // whether it is 1 decides the rank
          ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
          return Status::ok();
        }
        drop[i] = dims[i].value == 1;
      }
    }
    std::vector<ir::Dim> out;
    for (size_t i = 0; i < dims.size(); ++i)
      if (!drop[i]) out.push_back(dims[i]);
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    std::optional<std::vector<int64_t>> axes = axes_attr_;
    if (opset_ >= 13 && ctx.input(1)) {
      HI_ASSIGN_OR_RETURN(auto a, int_list_checked(*ctx.input(1), "axes"));
      axes = std::move(a);
    }
    if (axes && axes->empty()) axes.reset();
    std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
    if (axes) {
      HI_ASSIGN_OR_RETURN(auto norm, normalize_axes(*axes, x.rank(), "axes"));
      for (int64_t a : norm) {
        if (x.dim(a) != 1)
          return error(StatusCode::kInvalidArgument, "cannot squeeze axis ", a, " of ", x.type_string(),
                       ": its size is ", x.dim(a), ", not 1");
        drop[static_cast<size_t>(a)] = true;
      }
    } else {
      for (int64_t i = 0; i < x.rank(); ++i) drop[static_cast<size_t>(i)] = x.dim(i) == 1;
    }
    Shape out;
    for (int64_t i = 0; i < x.rank(); ++i)
      if (!drop[static_cast<size_t>(i)]) out.push_back(x.dim(i));
    ctx.set_output(0, x.reshaped(out));
    return Status::ok();
  }

 private:
  int64_t opset_ = 13;
  std::optional<std::vector<int64_t>> axes_attr_;
};

}  // namespace

HI_REGISTER_OP(Squeeze, SqueezeOp)

}  // namespace hi::ops
