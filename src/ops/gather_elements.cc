// GatherElements: out[i0..ik] = data[i0.., indices[i0..ik] (at `axis`), ..ik]. indices has the
// rank of data, and no dim larger than data's off the axis; the output has indices' shape. Any
// element type; negative indices count from the end of the axis.
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class GatherElementsOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& data = ctx.input_type(0);
    const ir::ValueType& idx = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), data.dtype, "data"));
    HI_RETURN_IF_ERROR(check_index_type(idx, "indices"));
    if (data.has_rank()) {
      if (data.rank() == 0) return error(StatusCode::kInvalidModel, "data must have rank >= 1, got ", data.to_string());
      HI_RETURN_IF_ERROR(normalize_axis(axis_, data.rank()).status());
    }
    if (data.has_rank() && idx.has_rank()) {
      if (data.rank() != idx.rank())
        return error(StatusCode::kInvalidModel, "indices ", idx.to_string(), " must have the rank of data ",
                     data.to_string());
      HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, data.rank()));
      for (int64_t d = 0; d < data.rank(); ++d) {
        const ir::Dim& dd = (*data.shape)[static_cast<size_t>(d)];
        const ir::Dim& id = (*idx.shape)[static_cast<size_t>(d)];
        if (d != axis && dd.is_known() && id.is_known() && id.value > dd.value)
          return error(StatusCode::kInvalidModel, "indices ", idx.to_string(), " is larger than data ",
                       data.to_string(), " in dim ", d);
      }
      const ir::Dim& axis_dim = (*data.shape)[static_cast<size_t>(axis)];
      if (const Tensor* v = ctx.input_value(1); v && axis_dim.is_known())
        for (int64_t k = 0; k < v->numel(); ++k)
          HI_RETURN_IF_ERROR(resolve_index(*v, k, axis_dim.value, "indices", axis).status());
    }
    ctx.set_output_type(0, idx.has_rank() ? ir::ValueType::tensor(data.dtype, *idx.shape)
                                          : ir::ValueType::tensor_unknown_shape(data.dtype));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& data = ctx.in(0);
    const Tensor& indices = ctx.in(1);
    HI_RETURN_IF_ERROR(check_index_tensor(indices, "indices"));
    if (data.rank() == 0)
      return error(StatusCode::kInvalidArgument, "data must have rank >= 1, got ", data.type_string());
    if (indices.rank() != data.rank())
      return error(StatusCode::kInvalidArgument, "indices ", indices.type_string(), " must have the rank of data ",
                   data.type_string());
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, data.rank()));
    for (int64_t d = 0; d < data.rank(); ++d)
      if (d != axis && indices.dim(d) > data.dim(d))
        return error(StatusCode::kInvalidArgument, "indices ", indices.type_string(), " is larger than data ",
                     data.type_string(), " in dim ", d);
    // Resolve every index first, so the copy below never reads out of bounds.
    std::vector<int64_t> resolved(static_cast<size_t>(indices.numel()));
    for (int64_t k = 0; k < indices.numel(); ++k) {
      HI_ASSIGN_OR_RETURN(resolved[static_cast<size_t>(k)], resolve_index(indices, k, data.dim(axis), "indices", axis));
    }
    Tensor& out = ctx.output(0, data.dtype(), indices.shape());
    const std::vector<int64_t> strides = strides_of(data.shape());
    const auto ua = static_cast<size_t>(axis);
    if (!dispatch_storage(data.dtype(), [&]<typename U>() {
          const U* src = storage<U>(data);
          U* dst = storage<U>(out);
          for_each_index(indices.shape(), [&](int64_t lin, const std::vector<int64_t>& idx) {
            int64_t off = 0;
            for (size_t d = 0; d < idx.size(); ++d)
              off += (d == ua ? resolved[static_cast<size_t>(lin)] : idx[d]) * strides[d];
            dst[lin] = src[off];
          });
        }))
      return check_movable(ctx.node(), data.dtype());
    return Status::ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(GatherElements, GatherElementsOp)

}  // namespace hi::ops
