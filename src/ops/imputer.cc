// Imputer (ai.onnx.ml opset 1): replaces the elements of X equal to the replaced value with the
// imputed value of their feature (X's last dim; one imputed value applies to all features).
// Float inputs (float, double) use imputed_value_floats / replaced_value_float (NaN replaces
// NaNs); integer inputs (int64, int32) use imputed_value_int64s / replaced_value_int64.
#include <cmath>
#include <type_traits>

#include "ops/dispatch.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kImputerTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class ImputerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    float_values_ = ctx.get_floats("imputed_value_floats");
    int_values_ = ctx.get_ints("imputed_value_int64s");
    replaced_float_ = ctx.get_float("replaced_value_float", 0.f);
    replaced_int_ = ctx.get_int("replaced_value_int64", 0);
    HI_RETURN_IF_ERROR(ctx.status());
    if (float_values_.empty() == int_values_.empty())
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": exactly one of imputed_value_floats and imputed_value_int64s must be set");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kImputerTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined) HI_RETURN_IF_ERROR(check_kind(x.dtype, StatusCode::kInvalidModel));
    if (x.has_rank() && x.rank() > 0 && x.shape->back().is_known())
      HI_RETURN_IF_ERROR(check_length(x.shape->back().value, StatusCode::kInvalidModel));
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kImputerTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    HI_RETURN_IF_ERROR(check_kind(x.dtype(), StatusCode::kInvalidArgument));
    const int64_t f = rows_of(x.shape()).features;
    HI_RETURN_IF_ERROR(check_length(f, StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kImputerTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const size_t c = f > 0 ? static_cast<size_t>(i % f) : 0;
        if constexpr (std::is_floating_point_v<T>) {
          const bool hit = std::isnan(replaced_float_) ? std::isnan(px[i]) : px[i] == static_cast<T>(replaced_float_);
          py[i] = hit ? static_cast<T>(float_values_.size() == 1 ? float_values_[0] : float_values_[c]) : px[i];
        } else {
          const bool hit = static_cast<int64_t>(px[i]) == replaced_int_;
          py[i] = hit ? static_cast<T>(int_values_.size() == 1 ? int_values_[0] : int_values_[c]) : px[i];
        }
      }
    });
    return Status::ok();
  }

 private:
  // Float inputs need the float attributes, integer inputs the integer ones.
  Status check_kind(DType t, StatusCode code) const {
    const bool is_float = dtype_is_float(t);
    if (is_float && float_values_.empty())
      return error(code, "Imputer (ai.onnx.ml opset ", opset_, "): X is ", dtype_name(t),
                   " but only imputed_value_int64s is set");
    if (!is_float && int_values_.empty())
      return error(code, "Imputer (ai.onnx.ml opset ", opset_, "): X is ", dtype_name(t),
                   " but only imputed_value_floats is set");
    return Status::ok();
  }
  Status check_length(int64_t features, StatusCode code) const {
    const size_t n = float_values_.empty() ? int_values_.size() : float_values_.size();
    if (n == 1 || static_cast<int64_t>(n) == features) return Status::ok();
    return error(code, "Imputer (ai.onnx.ml opset ", opset_, "): ", n, " imputed values, expected 1 or the ", features,
                 " features of X");
  }

  int64_t opset_ = 0;
  std::vector<float> float_values_;
  std::vector<int64_t> int_values_;
  float replaced_float_ = 0.f;
  int64_t replaced_int_ = 0;
};

}  // namespace

HI_REGISTER_OP(Imputer, ImputerOp)

}  // namespace hi::ops
