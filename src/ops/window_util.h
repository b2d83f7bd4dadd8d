// The window ops (HannWindow, HammingWindow, BlackmanWindow, opset 17): a 1-D window of `size`
// values (a scalar int32/int64 input), w[n] = f(n / N) with N = size when 'periodic' (the
// default, for spectral analysis) and size - 1 otherwise (symmetric). Computed in double and
// converted to 'output_datatype' (default float32; integer types truncate). A symmetric window
// of size 1 is [1].
#pragma once

#include <cmath>
#include <numbers>

#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {

// Types a window or MelWeightMatrix may produce (the spec's T2).
constexpr uint64_t kWindowOutputTypes = kNumericTypes;

// Reads 'output_datatype' (default float32) and checks it is one of `types`.
inline DType parse_output_datatype(InitContext& ctx, uint64_t types) {
  const auto dt = static_cast<DType>(ctx.get_int("output_datatype", static_cast<int64_t>(DType::kFloat32)));
  if (!in_set(types, dt))
    (void)ctx.fail(StatusCode::kUnsupported, "attribute 'output_datatype' names ", dtype_name(dt), ", which ",
                   ctx.node().op_type, " does not produce");
  return dt;
}

// Fn has `static double value(double phase)` with phase = 2*pi*n/N.
template <typename Fn>
class WindowOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t p = ctx.get_int("periodic", 1);
    if (p != 0 && p != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'periodic' must be 0 or 1, got ", p);
    periodic_ = p == 1;
    dtype_ = parse_output_datatype(ctx, kWindowOutputTypes);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(
        check_scalar_type(ctx.node(), ctx.input_type(0), bit(DType::kInt32) | bit(DType::kInt64), "size"));
    ir::Dim len;
    if (const Tensor* s = ctx.input_value(0)) {
      HI_ASSIGN_OR_RETURN(const int64_t n, read_size(*s));
      len = ir::Dim::known(n);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(dtype_, {len}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const int64_t size, read_size(ctx.in(0)));
    Tensor& y = ctx.output(0, dtype_, {size});
    const double denom = static_cast<double>(periodic_ ? size : size - 1);
    dispatch<kWindowOutputTypes>(dtype_, [&]<typename T>() {
      T* p = y.data<T>();
      for (int64_t n = 0; n < size; ++n) {
        const double v = denom == 0 ? 1.0 : Fn::value(2.0 * std::numbers::pi * static_cast<double>(n) / denom);
        p[n] = saturate_cast<T>(v);
      }
    });
    return Status::ok();
  }

 private:
  static Result<int64_t> read_size(const Tensor& t) {
    HI_ASSIGN_OR_RETURN(const int64_t n, scalar_int(t, "size"));
    if (n < 0) return error(StatusCode::kInvalidArgument, "size must be >= 0, got ", n);
    return n;
  }

  bool periodic_ = true;
  DType dtype_ = DType::kFloat32;
};

}  // namespace hi::ops
