// OneHot (opset 9): output[..., j, ...] = on_value where j == indices[...] and off_value
// elsewhere, with the new depth-sized dim inserted at 'axis' (default -1, the last; the output
// rank is the indices' rank + 1). indices and depth may be any numeric type (floats truncate);
// values = [off_value, on_value] gives the output type. From opset 11, indices in [-depth, -1]
// count from the end; indices outside [-depth, depth - 1] give a row of off_value.
#include <cmath>
#include <cstdint>
#include <optional>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

constexpr uint64_t kIndexTypes = kNumericTypes;

// The depth as a positive integer (a float depth truncates, as ONNX Runtime does).
Result<int64_t> read_depth(const Tensor& t) {
  HI_ASSIGN_OR_RETURN(const double d, scalar_double(t, "depth"));
  if (!(d >= 1) || d >= 9.0e18)  // NaN too: converting it to an integer is undefined
    return error(StatusCode::kInvalidArgument, "depth must be a positive number of classes, got ", d);
  return static_cast<int64_t>(d);
}

// Element i of the indices as an integer (floats truncate); nullopt for NaN and for values
// too large for int64, which match no class.
std::optional<int64_t> index_at(const Tensor& idx, int64_t i) {
  if (dtype_is_integer(idx.dtype())) {
    if (idx.dtype() == DType::kUInt64 && idx.data<uint64_t>()[i] > static_cast<uint64_t>(INT64_MAX))
      return std::nullopt;
    return idx.as_int64(i);
  }
  const double raw = idx.as_double(i);
  if (std::isnan(raw) || raw <= -9.0e18 || raw >= 9.0e18) return std::nullopt;
  return static_cast<int64_t>(raw);
}

class OneHotOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -1);
    negative_indices_ = ctx.opset() >= 11;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3, 1));
    const ir::ValueType& idx = ctx.input_type(0);
    const ir::ValueType& values = ctx.input_type(2);
    if (idx.dtype != DType::kUndefined && !in_set(kIndexTypes, idx.dtype))
      return unsupported_dtype(ctx.node(), idx.dtype, "indices");
    HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(1), kIndexTypes, "depth"));
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), values.dtype, "values"));
    if (values.has_rank() && (values.rank() != 1 || ((*values.shape)[0].is_known() && (*values.shape)[0].value != 2)))
      return error(StatusCode::kInvalidModel, "values must be [off_value, on_value] (shape [2]), got ",
                   values.to_string());
    if (!idx.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(values.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, idx.rank() + 1));
    ir::Dim depth;
    if (const Tensor* d = ctx.input_value(1)) {
      HI_ASSIGN_OR_RETURN(const int64_t dv, read_depth(*d));
      depth = ir::Dim::known(dv);
    }
    std::vector<ir::Dim> out = *idx.shape;
    out.insert(out.begin() + axis, depth);
    if (depth.is_known()) HI_RETURN_IF_ERROR(check_output_dims(out, "input 'depth' = " + std::to_string(depth.value)));
    ctx.set_output_type(0, ir::ValueType::tensor(values.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& idx = ctx.in(0);
    const Tensor& values = ctx.in(2);
    if (!in_set(kIndexTypes, idx.dtype())) return unsupported_dtype(ctx.node(), idx.dtype(), "indices");
    if (values.rank() != 1 || values.numel() != 2)
      return error(StatusCode::kInvalidArgument, "values must be [off_value, on_value] (shape [2]), got ",
                   values.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t depth, read_depth(ctx.in(1)));
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, idx.rank() + 1));
    Shape out_shape = idx.shape();
    out_shape.insert(out_shape.begin() + axis, depth);
    HI_RETURN_IF_ERROR(
        check_output_shape(out_shape, "input 'depth' = " + std::to_string(depth), StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, values.dtype(), out_shape);
    // Output index (o, j, i): o over the indices' dims before axis, i over the ones after.
    const int64_t outer = dims_product(idx.shape(), 0, static_cast<size_t>(axis));
    const int64_t inner = dims_product(idx.shape(), static_cast<size_t>(axis), idx.shape().size());
    if (!dispatch_storage(values.dtype(), [&]<typename U>() {
          const U off = storage<U>(values)[0], on = storage<U>(values)[1];
          U* py = storage<U>(y);
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
              int64_t hot = -1;  // no class: all off
              if (const auto v = index_at(idx, o * inner + i)) {
                const int64_t c = *v < 0 && negative_indices_ ? *v + depth : *v;
                if (c >= 0 && c < depth) hot = c;
              }
              for (int64_t j = 0; j < depth; ++j) py[(o * depth + j) * inner + i] = j == hot ? on : off;
            }
        }))
      return check_movable(ctx.node(), values.dtype(), "values");
    return Status::ok();
  }

 private:
  int64_t axis_ = -1;
  bool negative_indices_ = true;
};

}  // namespace

HI_REGISTER_OP(OneHot, OneHotOp)

}  // namespace hi::ops
