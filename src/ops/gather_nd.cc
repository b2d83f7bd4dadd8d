// GatherND: indices' last dim (k) addresses data's dims [b, b+k) within each of the first b
// (batch_dims) dims, which data and indices share; each index tuple picks a slice of data's
// dims [b+k, r). Output shape: indices.shape[:-1] + data.shape[b+k:]. Any element type;
// negative indices count from the end of their dim.
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class GatherNDOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    batch_dims_ = ctx.get_int("batch_dims", 0);
    if (batch_dims_ < 0) return ctx.fail(StatusCode::kInvalidModel, "batch_dims must be >= 0, got ", batch_dims_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& data = ctx.input_type(0);
    const ir::ValueType& idx = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), data.dtype, "data"));
    if (idx.dtype != DType::kUndefined && idx.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "indices must be int64, got ", idx.to_string());
    if (!data.has_rank() || !idx.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(data.dtype));
      return Status::ok();
    }
    const int64_t r = data.rank(), q = idx.rank(), b = batch_dims_;
    if (r < 1 || q < 1)
      return error(StatusCode::kInvalidModel, "data ", data.to_string(), " and indices ", idx.to_string(),
                   " must have rank >= 1");
    if (b >= std::min(r, q))
      return error(StatusCode::kInvalidModel, "batch_dims ", b, " must be smaller than the ranks of data ",
                   data.to_string(), " and indices ", idx.to_string());
    const auto& dd = *data.shape;
    const auto& id = *idx.shape;
    for (size_t i = 0; i < static_cast<size_t>(b); ++i)
      if (!dims_may_match(dd[i], id[i]))
        return error(StatusCode::kInvalidModel, "batch dim ", i, " differs: data ", data.to_string(), ", indices ",
                     idx.to_string());
    const ir::Dim& last = id.back();
    if (!last.is_known()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(data.dtype));
      return Status::ok();
    }
    const int64_t k = last.value;
    if (k < 1 || k > r - b)
      return error(StatusCode::kInvalidModel, "the last dim of indices ", idx.to_string(), " must be in [1, ", r - b,
                   "] (data rank minus batch_dims)");
    if (const Tensor* v = ctx.input_value(1)) HI_RETURN_IF_ERROR(check_values(*v, dd));
    std::vector<ir::Dim> out(id.begin(), id.end() - 1);
    out.insert(out.end(), dd.begin() + b + k, dd.end());
    ctx.set_output_type(0, ir::ValueType::tensor(data.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& data = ctx.in(0);
    const Tensor& indices = ctx.in(1);
    HI_RETURN_IF_ERROR(check_index_tensor(indices, "indices"));
    const int64_t r = data.rank(), q = indices.rank(), b = batch_dims_;
    if (r < 1 || q < 1 || b >= std::min(r, q))
      return error(StatusCode::kInvalidArgument, "data ", data.type_string(), " and indices ", indices.type_string(),
                   " need rank > batch_dims ", b);
    for (int64_t i = 0; i < b; ++i)
      if (data.dim(i) != indices.dim(i))
        return error(StatusCode::kInvalidArgument, "batch dim ", i, " differs: data ", data.type_string(), ", indices ",
                     indices.type_string());
    const int64_t k = indices.dim(q - 1);
    if (k < 1 || k > r - b)
      return error(StatusCode::kInvalidArgument, "the last dim of indices ", indices.type_string(), " must be in [1, ",
                   r - b, "]");
    HI_RETURN_IF_ERROR(check_values(indices, known_dims(data.shape())));
    Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
    out_shape.insert(out_shape.end(), data.shape().begin() + b + k, data.shape().end());
    Tensor& out = ctx.output(0, data.dtype(), out_shape);
    const int64_t batches = dims_product(data.shape(), 0, static_cast<size_t>(b));
    const int64_t tuples_per_batch = batches == 0 ? 0 : shape_numel(indices.shape()) / k / batches;
    const int64_t slice = dims_product(data.shape(), static_cast<size_t>(b + k), static_cast<size_t>(r));
    const int64_t batch_stride = dims_product(data.shape(), static_cast<size_t>(b), static_cast<size_t>(r));
    const std::vector<int64_t> strides = strides_of(data.shape());
    if (!dispatch_storage(data.dtype(), [&]<typename U>() {
          const U* src = storage<U>(data);
          U* dst = storage<U>(out);
          for (int64_t bi = 0; bi < batches; ++bi)
            for (int64_t t = 0; t < tuples_per_batch; ++t) {
              const int64_t tuple = bi * tuples_per_batch + t;
              int64_t off = bi * batch_stride;
              for (int64_t j = 0; j < k; ++j) {
                const int64_t dim = data.dim(b + j);
                int64_t i = indices.as_int64(tuple * k + j);
                if (i < 0) i += dim;  // in range: checked above
                off += i * strides[static_cast<size_t>(b + j)];
              }
              for (int64_t e = 0; e < slice; ++e) dst[tuple * slice + e] = src[off + e];
            }
        }))
      return check_movable(ctx.node(), data.dtype());
    return Status::ok();
  }

 private:
  // Every index tuple's components within their dims of data (unknown dims are skipped).
  Status check_values(const Tensor& indices, const std::vector<ir::Dim>& data_dims) const {
    if (indices.rank() < 1) return Status::ok();
    const int64_t k = indices.dim(indices.rank() - 1);
    if (k <= 0) return Status::ok();
    for (int64_t e = 0; e < indices.numel(); ++e) {
      const int64_t axis = batch_dims_ + e % k;
      const ir::Dim& dim = data_dims[static_cast<size_t>(axis)];
      if (dim.is_known()) HI_RETURN_IF_ERROR(resolve_index(indices, e, dim.value, "indices", axis).status());
    }
    return Status::ok();
  }

  int64_t batch_dims_ = 0;
};

}  // namespace

HI_REGISTER_OP(GatherND, GatherNDOp)

}  // namespace hi::ops
