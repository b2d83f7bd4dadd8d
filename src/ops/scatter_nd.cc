// ScatterND: a copy of data with slices replaced (or, from opset 16, combined by add/mul; from 18
// by max/min) at the index tuples in indices' last dim (k <= rank of data). updates has shape
// indices.shape[:-1] + data.shape[k:]. Tuples apply in row-major order, so with no reduction the
// last duplicate wins. Negative indices count from the end of their dim.
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class ScatterNDOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    reduction_ = parse_scatter_reduction(ctx);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
    const ir::ValueType& data = ctx.input_type(0);
    const ir::ValueType& idx = ctx.input_type(1);
    const ir::ValueType& upd = ctx.input_type(2);
    HI_RETURN_IF_ERROR(check_scatter_dtype(ctx.node(), data.dtype, reduction_));
    if (idx.dtype != DType::kUndefined && idx.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "indices must be int64, got ", idx.to_string());
    if (upd.dtype != DType::kUndefined && data.dtype != DType::kUndefined && upd.dtype != data.dtype)
      return error(StatusCode::kInvalidModel, "updates ", upd.to_string(), " must have the type of data ",
                   data.to_string());
    if (data.has_rank() && idx.has_rank()) {
      if (data.rank() < 1 || idx.rank() < 1)
        return error(StatusCode::kInvalidModel, "data ", data.to_string(), " and indices ", idx.to_string(),
                     " must have rank >= 1");
      const ir::Dim& last = idx.shape->back();
      if (last.is_known()) {
        const int64_t k = last.value;
        if (k > data.rank())
          return error(StatusCode::kInvalidModel, "the last dim of indices ", idx.to_string(),
                       " exceeds the rank of data ", data.to_string());
        if (upd.has_rank()) {
          std::vector<ir::Dim> want(idx.shape->begin(), idx.shape->end() - 1);
          want.insert(want.end(), data.shape->begin() + k, data.shape->end());
          bool same = static_cast<size_t>(upd.rank()) == want.size();
          for (size_t d = 0; same && d < want.size(); ++d) same = dims_may_match(want[d], (*upd.shape)[d]);
          if (!same)
            return error(StatusCode::kInvalidModel, "updates ", upd.to_string(),
                         " must have shape indices.shape[:-1] + data.shape[", k,
                         ":] = ", ir::ValueType::tensor(upd.dtype, want).to_string());
        }
        if (const Tensor* v = ctx.input_value(1)) HI_RETURN_IF_ERROR(check_values(*v, *data.shape));
      }
    }
    ctx.set_output_type(0, data);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& data = ctx.in(0);
    const Tensor& indices = ctx.in(1);
    const Tensor& updates = ctx.in(2);
    HI_RETURN_IF_ERROR(check_index_tensor(indices, "indices"));
    if (updates.dtype() != data.dtype())
      return error(StatusCode::kInvalidArgument, "updates ", updates.type_string(), " must have the type of data ",
                   data.type_string());
    if (data.rank() < 1 || indices.rank() < 1)
      return error(StatusCode::kInvalidArgument, "data ", data.type_string(), " and indices ", indices.type_string(),
                   " must have rank >= 1");
    const int64_t k = indices.dim(indices.rank() - 1);
    if (k > data.rank())
      return error(StatusCode::kInvalidArgument, "the last dim of indices ", indices.type_string(),
                   " exceeds the rank of data ", data.type_string());
    Shape want(indices.shape().begin(), indices.shape().end() - 1);
    want.insert(want.end(), data.shape().begin() + k, data.shape().end());
    if (updates.shape() != want)
      return error(StatusCode::kInvalidArgument, "updates ", updates.type_string(),
                   " must have shape indices.shape[:-1] + data.shape[", k, ":] = ", shape_to_string(want));
    HI_RETURN_IF_ERROR(check_values(indices, known_dims(data.shape())));
    Tensor& out = ctx.output(0, data.dtype(), data.shape());
    const int64_t slice = dims_product(data.shape(), static_cast<size_t>(k), data.shape().size());
    const int64_t tuples = dims_product(indices.shape(), 0, indices.shape().size() - 1);
    const std::vector<int64_t> strides = strides_of(data.shape());
    // Offset in data of index tuple t.
    auto offset_of = [&](int64_t t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t i = indices.as_int64(t * k + j);
        if (i < 0) i += data.dim(j);  // in range: checked above
        off += i * strides[static_cast<size_t>(j)];
      }
      return off;
    };
    if (reduction_ == ScatterReduction::kNone) {
      if (!dispatch_storage(data.dtype(), [&]<typename U>() {
            const U* src = storage<U>(data);
            const U* upd = storage<U>(updates);
            U* dst = storage<U>(out);
            for (int64_t i = 0; i < data.numel(); ++i) dst[i] = src[i];
            for (int64_t t = 0; t < tuples; ++t) {
              const int64_t off = offset_of(t);
              for (int64_t e = 0; e < slice; ++e) dst[off + e] = upd[t * slice + e];
            }
          }))
        return check_movable(ctx.node(), data.dtype());
      return Status::ok();
    }
    if (!dispatch<kNumericTypes>(data.dtype(), [&]<typename T>() {
          const T* src = data.data<T>();
          const T* upd = updates.data<T>();
          T* dst = out.data<T>();
          for (int64_t i = 0; i < data.numel(); ++i) dst[i] = src[i];
          for (int64_t t = 0; t < tuples; ++t) {
            const int64_t off = offset_of(t);
            for (int64_t e = 0; e < slice; ++e)
              dst[off + e] = scatter_combine(reduction_, dst[off + e], upd[t * slice + e]);
          }
        }))
      return check_scatter_dtype(ctx.node(), data.dtype(), reduction_);
    return Status::ok();
  }

 private:
  // Each tuple component within its dim of data (unknown dims are skipped).
  static Status check_values(const Tensor& indices, const std::vector<ir::Dim>& data_dims) {
    if (indices.rank() < 1) return Status::ok();
    const int64_t k = indices.dim(indices.rank() - 1);
    if (k <= 0 || k > static_cast<int64_t>(data_dims.size())) return Status::ok();
    for (int64_t e = 0; e < indices.numel(); ++e) {
      const int64_t axis = e % k;
      const ir::Dim& dim = data_dims[static_cast<size_t>(axis)];
      if (dim.is_known()) HI_RETURN_IF_ERROR(resolve_index(indices, e, dim.value, "indices", axis).status());
    }
    return Status::ok();
  }

  ScatterReduction reduction_ = ScatterReduction::kNone;
};

}  // namespace

HI_REGISTER_OP(ScatterND, ScatterNDOp)

}  // namespace hi::ops
