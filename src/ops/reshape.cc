// Reshape: same data, new shape; 0 copies the input dim (unless allowzero), -1 is inferred.
#include "ops/shape_util.h"
#include "ops/op.h"

namespace hi::ops {
namespace {

class ReshapeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    allowzero_ = ctx.get_int("allowzero", 0) != 0;
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& shape_type = ctx.input_type(1);
    if (shape_type.dtype != DType::kUndefined && shape_type.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "shape must be int64, got ", shape_type.to_string());
    const Tensor* shape = ctx.input_value(1);
    if (!shape) {
      const ir::ValueType& s = ctx.input_type(1);
      const int64_t rank = s.is_static() && s.rank() == 1 ? s.concrete_shape()[0] : -1;
      ctx.set_output_type(0, tensor_of_rank(x.dtype, rank));
      return Status::ok();
    }
    const auto req = int_list(*shape);
    std::vector<ir::Dim> dims;
    int infer_at = -1;
    bool all_known = true;
    for (size_t i = 0; i < req.size(); ++i) {
      if (req[i] == -1) {
        if (infer_at >= 0)
          return error(StatusCode::kInvalidModel, "shape ", shape_to_string(req), " has more than one -1");
        infer_at = static_cast<int>(i);
        dims.emplace_back();
      } else if (req[i] == 0 && !allowzero_) {
        if (!x.has_rank() || static_cast<int64_t>(i) >= x.rank()) {
          if (x.has_rank())
            return error(StatusCode::kInvalidModel, "shape ", shape_to_string(req), " copies dim ", i,
                         " (0) but the input is ", x.to_string());
          dims.emplace_back();
        } else {
          dims.push_back((*x.shape)[i]);
        }
      } else if (req[i] < -1) {
        return error(StatusCode::kInvalidModel, "shape ", shape_to_string(req), " has a negative dim ", req[i]);
      } else {
        dims.push_back(ir::Dim::known(req[i]));
      }
      all_known = all_known && (dims.back().is_known() || static_cast<int>(i) == infer_at);
    }
    if (infer_at >= 0 && all_known && x.is_static()) {
      int64_t known = 1;
      for (size_t i = 0; i < dims.size(); ++i)
        if (static_cast<int>(i) != infer_at) {
          HI_ASSIGN_OR_RETURN(known, times(known, dims[i].value, req, StatusCode::kInvalidModel));
        }
      const int64_t total = shape_numel(x.concrete_shape());
      if (known == 0 || total % known != 0)
        return error(StatusCode::kInvalidModel, "cannot reshape ", x.to_string(), " to ", shape_to_string(req));
      dims[static_cast<size_t>(infer_at)] = ir::Dim::known(total / known);
    }
    HI_RETURN_IF_ERROR(check_output_dims(dims, "input 'shape' " + shape_to_string(req)));
    ir::ValueType out = ir::ValueType::tensor(x.dtype, dims);
    if (out.is_static() && x.is_static() && shape_numel(out.concrete_shape()) != shape_numel(x.concrete_shape()))
      return error(StatusCode::kInvalidModel, "cannot reshape ", x.to_string(), " (", shape_numel(x.concrete_shape()),
                   " elements) to ", shape_to_string(req));
    ctx.set_output_type(0, std::move(out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (ctx.in(1).dtype() != DType::kInt64)
      return error(StatusCode::kInvalidArgument, "shape must be int64, got ", ctx.in(1).type_string());
    const auto req = int_list(ctx.in(1));
    Shape out(req.size());
    int64_t known = 1;
    int infer_at = -1;
    for (size_t i = 0; i < req.size(); ++i) {
      if (req[i] == -1) {
        if (infer_at >= 0)
          return error(StatusCode::kInvalidArgument, "shape ", shape_to_string(req), " has more than one -1");
        infer_at = static_cast<int>(i);
        continue;
      }
      if (req[i] < -1)
        return error(StatusCode::kInvalidArgument, "shape ", shape_to_string(req), " has a negative dim");
      if (req[i] == 0 && !allowzero_) {
        if (static_cast<int64_t>(i) >= x.rank())
          return error(StatusCode::kInvalidArgument, "shape ", shape_to_string(req), " copies dim ", i, " of ",
                       x.type_string());
        out[i] = x.dim(static_cast<int64_t>(i));
      } else {
        out[i] = req[i];
      }
      HI_ASSIGN_OR_RETURN(known, times(known, out[i], req, StatusCode::kInvalidArgument));
    }
    if (infer_at >= 0) {
      if (known == 0 || x.numel() % known != 0)
        return error(StatusCode::kInvalidArgument, "cannot reshape ", x.type_string(), " to ", shape_to_string(req));
      out[static_cast<size_t>(infer_at)] = x.numel() / known;
    }
    if (shape_numel(out) != x.numel())
      return error(StatusCode::kInvalidArgument, "cannot reshape ", x.type_string(), " (", x.numel(), " elements) to ",
                   shape_to_string(out), " (", shape_numel(out), " elements)");
    ctx.set_output(0, x.reshaped(out));
    return Status::ok();
  }

 private:
  // The product so far times the next dim, when it fits in int64.
  static Result<int64_t> times(int64_t known, int64_t dim, const std::vector<int64_t>& req, StatusCode code) {
    const auto r = checked_mul(known, dim);
    if (!r) return error(code, "input 'shape' ", shape_to_string(req), " has more elements than int64 can count");
    return *r;
  }
  bool allowzero_ = false;
};

}  // namespace

HI_REGISTER_OP(Reshape, ReshapeOp)

}  // namespace hi::ops
