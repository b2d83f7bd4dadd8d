// Gather: picks slices of `data` along an axis by integer indices (negative ones count from
// the end); output shape is data[:axis] + indices.shape + data[axis+1:]. Any element type.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/threading.h"
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

class GatherOp final : public Op {
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
    if (idx.dtype != DType::kUndefined && idx.dtype != DType::kInt64 && idx.dtype != DType::kInt32)
      return error(StatusCode::kInvalidModel, "indices must be int32 or int64, got ", idx.to_string());
    if (!data.has_rank() || !idx.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(data.dtype));
      return Status::ok();
    }
    if (data.rank() == 0) return error(StatusCode::kInvalidModel, "data must have rank >= 1, got ", data.to_string());
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, data.rank()));
    const auto& dd = *data.shape;
    // Constant indices can be checked against a known axis size now.
    const ir::Dim& axis_dim = dd[static_cast<size_t>(axis)];
    if (const Tensor* v = ctx.input_value(1); v && axis_dim.is_known())
      HI_RETURN_IF_ERROR(check_indices(*v, axis, axis_dim.value));
    std::vector<ir::Dim> out(dd.begin(), dd.begin() + axis);
    out.insert(out.end(), idx.shape->begin(), idx.shape->end());
    out.insert(out.end(), dd.begin() + axis + 1, dd.end());
    ctx.set_output_type(0, ir::ValueType::tensor(data.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& data = ctx.in(0);
    const Tensor& indices = ctx.in(1);
    if (data.rank() == 0)
      return error(StatusCode::kInvalidArgument, "data must have rank >= 1, got ", data.type_string());
    if (indices.dtype() != DType::kInt64 && indices.dtype() != DType::kInt32)
      return error(StatusCode::kInvalidArgument, "indices must be int32 or int64, got ", indices.type_string());
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, data.rank()));
    const auto uaxis = static_cast<size_t>(axis);
    const int64_t axis_dim = data.dim(axis);
    HI_RETURN_IF_ERROR(check_indices(indices, axis, axis_dim));
    Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
    out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
    out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
    Tensor& out = ctx.output(0, data.dtype(), out_shape);
    const int64_t outer = dims_product(data.shape(), 0, uaxis);
    const int64_t inner = dims_product(data.shape(), uaxis + 1, data.shape().size());
    const int64_t n = indices.numel();
    const int64_t* idx64 = indices.dtype() == DType::kInt64 ? indices.data<int64_t>() : nullptr;
    const int32_t* idx32 = indices.dtype() == DType::kInt32 ? indices.data<int32_t>() : nullptr;
    auto index = [&](int64_t k) {
      const int64_t i = idx64 ? idx64[k] : idx32[k];
      return i < 0 ? i + axis_dim : i;
    };
    if (!dispatch_storage(data.dtype(), [&]<typename U>() {
          const U* src = storage<U>(data);
          U* dst = storage<U>(out);
          // Output row r = (o, k) is input row (o, indices[k]), `inner` elements each. Rows of
          // fixed-size elements move by memcpy, shared among the threads when there are many
          // bytes: an embedding lookup reads rows scattered over a large table.
          auto copy_rows = [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              const U* from = src + ((r / n) * axis_dim + index(r % n)) * inner;
              U* to = dst + r * inner;
              if constexpr (std::is_same_v<U, std::string>) std::copy(from, from + inner, to);
              else std::memcpy(to, from, static_cast<size_t>(inner) * sizeof(U));
            }
          };
          if constexpr (std::is_same_v<U, std::string>) copy_rows(0, outer * n);
          else
            parallel_for(outer * n, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, inner * sizeof(U))),
                         copy_rows);
        }))
      return check_movable(ctx.node(), data.dtype());
    return Status::ok();
  }

 private:
  // Every index must lie in [-dim, dim - 1].
  static Status check_indices(const Tensor& indices, int64_t axis, int64_t dim) {
    for (int64_t k = 0; k < indices.numel(); ++k) {
      const int64_t i = indices.as_int64(k);
      if (i < -dim || i >= dim)
        return error(StatusCode::kInvalidArgument, "index ", i, " (element ", k, " of indices ", indices.type_string(),
                     ") is out of range for axis ", axis, " of size ", dim, ": expected [", -dim, ", ", dim - 1, "]");
    }
    return Status::ok();
  }

  int64_t axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(Gather, GatherOp)

}  // namespace hi::ops
