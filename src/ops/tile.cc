// Tile: repeats the input along each dim; output dim d = input dim d * repeats[d]. From opset 6
// 'repeats' is a 1-D int64 input with one non-negative entry per input dim. Opset 1 took two
// scalar inputs instead, 'tiles' and 'axis', repeating along that one axis. Any element type.
#include "ops/copy_util.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

class TileOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    legacy_ = ctx.opset() < 6;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, legacy_ ? 3 : 2, legacy_ ? 3 : 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (legacy_) {
      HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(1), kIntTypes, "tiles"));
      HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(2), kIntTypes, "axis"));
    } else {
      HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "repeats"));
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> out(static_cast<size_t>(x.rank()));
    const bool known = legacy_ ? ctx.input_value(1) && ctx.input_value(2) : ctx.input_value(1) != nullptr;
    if (known) {
      HI_ASSIGN_OR_RETURN(const std::vector<int64_t> reps,
                          legacy_ ? legacy_repeats(*ctx.input_value(1), *ctx.input_value(2), x.rank())
                                  : repeats(*ctx.input_value(1), x.rank()));
      for (size_t d = 0; d < out.size(); ++d) {
        const ir::Dim& in = (*x.shape)[d];
        if (reps[d] == 1) out[d] = in;
        else if (reps[d] == 0) out[d] = ir::Dim::known(0);
        else if (in.is_known()) {
          HI_ASSIGN_OR_RETURN(const int64_t size, tiled_size(in.value, reps, d, StatusCode::kInvalidModel));
          out[d] = ir::Dim::known(size);
        }
      }
      HI_RETURN_IF_ERROR(check_output_dims(out, "input 'repeats' " + shape_to_string(reps)));
    } else if (!legacy_) {
      const ir::ValueType& r = ctx.input_type(1);
      if (r.has_rank() && r.rank() == 1 && (*r.shape)[0].is_known() && (*r.shape)[0].value != x.rank())
        return error(StatusCode::kInvalidModel, "repeats ", r.to_string(), " must have one entry per input dim (",
                     x.rank(), ")");
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(const std::vector<int64_t> reps,
                        legacy_ ? legacy_repeats(ctx.in(1), ctx.in(2), x.rank()) : repeats(ctx.in(1), x.rank()));
    Shape out_shape(x.shape().size());
    for (size_t d = 0; d < out_shape.size(); ++d) {
      HI_ASSIGN_OR_RETURN(out_shape[d], tiled_size(x.shape()[d], reps, d, StatusCode::kInvalidArgument));
    }
    HI_RETURN_IF_ERROR(
        check_output_shape(out_shape, "input 'repeats' " + shape_to_string(reps), StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    if (y.numel() == 0) return Status::ok();
    // Input strides; output element (i0..ik) reads input (i0 % d0, .., ik % dk).
    const std::vector<int64_t> in_strides = strides_of(x.shape());
    const size_t rank = out_shape.size();
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          std::vector<int64_t> idx(rank, 0);
          for (int64_t o = 0; o < y.numel(); ++o) {
            int64_t off = 0;
            for (size_t d = 0; d < rank; ++d) off += (idx[d] % x.shape()[d]) * in_strides[d];
            dst[o] = src[off];
            for (size_t d = rank; d-- > 0;) {
              if (++idx[d] < out_shape[d]) break;
              idx[d] = 0;
            }
          }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // Input dim d of `size` times repeats[d], when that fits in int64.
  static Result<int64_t> tiled_size(int64_t size, const std::vector<int64_t>& reps, size_t d, StatusCode code) {
    const auto r = checked_mul(size, reps[d]);
    if (!r)
      return error(code, "input 'repeats' ", shape_to_string(reps), " makes dim ", d, " (", size, " x ", reps[d],
                   ") larger than int64 can count");
    return *r;
  }
  // Opset 6+: one non-negative repeat per input dim, with a product that fits.
  static Result<std::vector<int64_t>> repeats(const Tensor& r, int64_t rank) {
    if (r.dtype() != DType::kInt64 && r.dtype() != DType::kInt32)
      return error(StatusCode::kInvalidArgument, "repeats must be int64, got ", r.type_string());
    if (r.rank() != 1 || r.numel() != rank)
      return error(StatusCode::kInvalidArgument, "repeats ", r.type_string(),
                   " must be 1-D with one entry per input dim (", rank, ")");
    std::vector<int64_t> v = r.to_int64_vector();
    for (size_t d = 0; d < v.size(); ++d)
      if (v[d] < 0)
        return error(StatusCode::kInvalidArgument, "repeats ", shape_to_string(v), " has a negative entry at dim ", d);
    return v;
  }
  // Opset 1: 'tiles' copies along 'axis', 1 elsewhere.
  static Result<std::vector<int64_t>> legacy_repeats(const Tensor& tiles, const Tensor& axis, int64_t rank) {
    HI_ASSIGN_OR_RETURN(const int64_t t, scalar_int(tiles, "tiles"));
    HI_ASSIGN_OR_RETURN(const int64_t a, scalar_int(axis, "axis"));
    if (t < 0) return error(StatusCode::kInvalidArgument, "tiles must be >= 0, got ", t);
    HI_ASSIGN_OR_RETURN(const int64_t na, normalize_axis(a, rank));
    std::vector<int64_t> v(static_cast<size_t>(rank), 1);
    v[static_cast<size_t>(na)] = t;
    return v;
  }

  bool legacy_ = false;
};

}  // namespace

HI_REGISTER_OP(Tile, TileOp)

}  // namespace hi::ops
