// Range: [start, start + delta, ...) up to (not including) limit, from three scalar inputs of
// one numeric type; max(ceil((limit - start) / delta), 0) elements.
#include <cmath>
#include <limits>

#include "ops/arity.h"
#include "ops/copy_util.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

constexpr uint64_t kRangeTypes = kFloatTypes | bit(DType::kInt16) | bit(DType::kInt32) | bit(DType::kInt64);

// The element count, from the scalar inputs; errors for a zero delta or a count too large.
Result<int64_t> range_count(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (dtype_is_integer(start.dtype())) {
    const __int128 s = start.as_int64(0), l = limit.as_int64(0), d = delta.as_int64(0);
    if (d == 0) return error(StatusCode::kInvalidArgument, "delta is 0");
    const __int128 diff = l - s;
    // ceil(diff / d) for any signs.
    __int128 q = diff / d;
    if (diff % d != 0 && ((diff > 0) == (d > 0))) ++q;
    // int64 from INT64_MIN to INT64_MAX by 1 has 2^64 - 1 elements: more than int64 counts.
    if (q > std::numeric_limits<int64_t>::max())
      return error(StatusCode::kInvalidArgument, "range(start ", start.as_int64(0), ", limit ", limit.as_int64(0),
                   ", delta ", delta.as_int64(0), ") has ", static_cast<double>(q),
                   " elements, more than int64 can count");
    return static_cast<int64_t>(q > 0 ? q : 0);
  }
  const double s = start.as_double(0), l = limit.as_double(0), d = delta.as_double(0);
  if (d == 0) return error(StatusCode::kInvalidArgument, "delta is 0 (start ", s, ", limit ", l, ")");
  const double n = std::ceil((l - s) / d);
  if (std::isnan(n))
    return error(StatusCode::kInvalidArgument, "range(start ", s, ", limit ", l, ", delta ", d,
                 ") has no defined length");
  if (n <= 0) return int64_t{0};
  if (n >= 9.0e18)
    return error(StatusCode::kInvalidArgument, "range(start ", s, ", limit ", l, ", delta ", d, ") has ", n,
                 " elements, more than int64 can count");
  return static_cast<int64_t>(n);
}

Status check_scalar(const Tensor& t, const char* what) {
  if (t.numel() != 1) return error(StatusCode::kInvalidArgument, what, " must be a scalar, got ", t.type_string());
  return Status::ok();
}

class RangeOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
    const char* names[] = {"start", "limit", "delta"};
    DType dtype = DType::kUndefined;
    for (size_t i = 0; i < 3; ++i) {
      const ir::ValueType& t = ctx.input_type(i);
      if (t.dtype != DType::kUndefined) {
        if (!in_set(kRangeTypes, t.dtype)) return unsupported_dtype(ctx.node(), t.dtype, names[i]);
        if (dtype != DType::kUndefined && t.dtype != dtype)
          return error(StatusCode::kInvalidModel, names[i], " is ", t.to_string(), " but start is ", dtype_name(dtype));
        dtype = t.dtype;
      }
      if (t.has_rank() && t.rank() > 1)
        return error(StatusCode::kInvalidModel, names[i], " must be a scalar, got ", t.to_string());
    }
    const Tensor *s = ctx.input_value(0), *l = ctx.input_value(1), *d = ctx.input_value(2);
    if (s && l && d) {
      HI_RETURN_IF_ERROR(check_scalar(*s, "start"));
      HI_RETURN_IF_ERROR(check_scalar(*l, "limit"));
      HI_RETURN_IF_ERROR(check_scalar(*d, "delta"));
      HI_ASSIGN_OR_RETURN(int64_t n, range_count(*s, *l, *d));
      ctx.set_output_type(0, ir::ValueType::concrete(dtype, {n}));
    } else {
      ctx.set_output_type(0, ir::ValueType::tensor(dtype, {ir::Dim{}}));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& s = ctx.in(0);
    const Tensor& l = ctx.in(1);
    const Tensor& d = ctx.in(2);
    HI_RETURN_IF_ERROR(check_scalar(s, "start"));
    HI_RETURN_IF_ERROR(check_scalar(l, "limit"));
    HI_RETURN_IF_ERROR(check_scalar(d, "delta"));
    if (l.dtype() != s.dtype() || d.dtype() != s.dtype())
      return error(StatusCode::kInvalidArgument, "start, limit and delta must share a type, got ", s.type_string(),
                   ", ", l.type_string(), ", ", d.type_string());
    HI_ASSIGN_OR_RETURN(int64_t n, range_count(s, l, d));
    Tensor& out = ctx.output(0, s.dtype(), {n});
    if (!dispatch<kRangeTypes>(s.dtype(), [&]<typename T>() {
          T* po = out.data<T>();
          if constexpr (std::is_integral_v<T>) {
            // Exact in 128 bits: every element lies between start and limit, but i * delta
            // alone may not fit in 64 bits.
            const __int128 start = s.as_int64(0), delta = d.as_int64(0);
            for (int64_t i = 0; i < n; ++i) po[i] = static_cast<T>(start + i * delta);
          } else {
            // Each element is start + i * delta, computed in double and rounded once.
            const double start = s.as_double(0), delta = d.as_double(0);
            for (int64_t i = 0; i < n; ++i)
              po[i] = static_cast<T>(static_cast<compute_t<T>>(start + static_cast<double>(i) * delta));
          }
        }))
      return unsupported_dtype(ctx.node(), s.dtype());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Range, RangeOp)

}  // namespace hi::ops
