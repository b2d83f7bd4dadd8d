// Inference and the reference kernel shared by ScatterElements and its deprecated twin Scatter
// (opset 9-10): out = data, then out[i0.., indices[i0..ik] (at axis), ..ik] (op)= updates[i0..ik]
// in row-major order of the updates (so with no reduction the last duplicate wins).
#pragma once

#include "ops/index_util.h"

namespace hi::ops {

inline Status infer_scatter_elements(InferContext& ctx, int64_t axis_attr, ScatterReduction reduction) {
  HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
  const ir::ValueType& data = ctx.input_type(0);
  const ir::ValueType& idx = ctx.input_type(1);
  const ir::ValueType& upd = ctx.input_type(2);
  HI_RETURN_IF_ERROR(check_scatter_dtype(ctx.node(), data.dtype, reduction));
  HI_RETURN_IF_ERROR(check_index_type(idx, "indices"));
  if (upd.dtype != DType::kUndefined && data.dtype != DType::kUndefined && upd.dtype != data.dtype)
    return error(StatusCode::kInvalidModel, "updates ", upd.to_string(), " must have the type of data ",
                 data.to_string());
  if (data.has_rank()) {
    if (data.rank() == 0) return error(StatusCode::kInvalidModel, "data must have rank >= 1, got ", data.to_string());
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_attr, data.rank()));
    if (idx.has_rank() && idx.rank() != data.rank())
      return error(StatusCode::kInvalidModel, "indices ", idx.to_string(), " must have the rank of data ",
                   data.to_string());
    if (idx.has_rank()) {
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
  }
  if (idx.has_rank() && upd.has_rank()) {
    bool same = idx.rank() == upd.rank();
    for (size_t d = 0; same && d < idx.shape->size(); ++d) same = dims_may_match((*idx.shape)[d], (*upd.shape)[d]);
    if (!same)
      return error(StatusCode::kInvalidModel, "updates ", upd.to_string(), " must have the shape of indices ",
                   idx.to_string());
  }
  ctx.set_output_type(0, data);
  return Status::ok();
}

inline Status run_scatter_elements(RunContext& ctx, int64_t axis_attr, ScatterReduction reduction) {
  const Tensor& data = ctx.in(0);
  const Tensor& indices = ctx.in(1);
  const Tensor& updates = ctx.in(2);
  HI_RETURN_IF_ERROR(check_index_tensor(indices, "indices"));
  if (data.rank() == 0)
    return error(StatusCode::kInvalidArgument, "data must have rank >= 1, got ", data.type_string());
  if (updates.dtype() != data.dtype())
    return error(StatusCode::kInvalidArgument, "updates ", updates.type_string(), " must have the type of data ",
                 data.type_string());
  if (indices.rank() != data.rank())
    return error(StatusCode::kInvalidArgument, "indices ", indices.type_string(), " must have the rank of data ",
                 data.type_string());
  if (updates.shape() != indices.shape())
    return error(StatusCode::kInvalidArgument, "updates ", updates.type_string(), " must have the shape of indices ",
                 indices.type_string());
  HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_attr, data.rank()));
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices.dim(d) > data.dim(d))
      return error(StatusCode::kInvalidArgument, "indices ", indices.type_string(), " is larger than data ",
                   data.type_string(), " in dim ", d);
  std::vector<int64_t> resolved(static_cast<size_t>(indices.numel()));
  for (int64_t k = 0; k < indices.numel(); ++k) {
    HI_ASSIGN_OR_RETURN(resolved[static_cast<size_t>(k)], resolve_index(indices, k, data.dim(axis), "indices", axis));
  }
  Tensor& out = ctx.output(0, data.dtype(), data.shape());
  const std::vector<int64_t> strides = strides_of(data.shape());
  const auto ua = static_cast<size_t>(axis);
  // The destination offset of update element `lin` at multi-index idx.
  auto target = [&](int64_t lin, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (d == ua ? resolved[static_cast<size_t>(lin)] : idx[d]) * strides[d];
    return off;
  };
  if (reduction == ScatterReduction::kNone) {
    if (!dispatch_storage(data.dtype(), [&]<typename U>() {
          const U* src = storage<U>(data);
          const U* upd = storage<U>(updates);
          U* dst = storage<U>(out);
          for (int64_t i = 0; i < data.numel(); ++i) dst[i] = src[i];
          for_each_index(indices.shape(),
                         [&](int64_t lin, const std::vector<int64_t>& idx) { dst[target(lin, idx)] = upd[lin]; });
        }))
      return check_movable(ctx.node(), data.dtype());
    return Status::ok();
  }
  if (!dispatch<kNumericTypes>(data.dtype(), [&]<typename T>() {
        const T* src = data.data<T>();
        const T* upd = updates.data<T>();
        T* dst = out.data<T>();
        for (int64_t i = 0; i < data.numel(); ++i) dst[i] = src[i];
        for_each_index(indices.shape(), [&](int64_t lin, const std::vector<int64_t>& idx) {
          T& o = dst[target(lin, idx)];
          o = scatter_combine(reduction, o, upd[lin]);
        });
      }))
    return check_scatter_dtype(ctx.node(), data.dtype(), reduction);
  return Status::ok();
}

}  // namespace hi::ops
