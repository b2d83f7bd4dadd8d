// OneHotEncoder (ai.onnx.ml opset 1): Y = X.shape + [number of categories], float, with a 1 at
// the position of each element's category. String inputs look up cats_strings; int64, int32,
// float and double inputs look up cats_int64s (floats truncate toward zero, as ONNX Runtime
// casts them). A value in no category gives a row of zeros when zeros = 1 (default), and is an
// error when zeros = 0.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kNumericInputs =
    bit(DType::kInt64) | bit(DType::kInt32) | bit(DType::kFloat32) | bit(DType::kFloat64);

class OneHotEncoderOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const auto ints = ctx.get_ints("cats_int64s");
    const auto strings = ctx.get_strings("cats_strings");
    zeros_ = ctx.get_int("zeros", 1) != 0;
    HI_RETURN_IF_ERROR(ctx.status());
    if (ints.empty() == strings.empty())
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": exactly one of cats_int64s and cats_strings must be set");
    strings_ = !strings.empty();
    categories_ = static_cast<int64_t>(strings_ ? strings.size() : ints.size());
    // The first occurrence of a repeated category names its position.
    for (int64_t i = categories_ - 1; i >= 0; --i) {
      if (strings_) by_string_[strings[static_cast<size_t>(i)]] = i;
      else by_int_[ints[static_cast<size_t>(i)]] = i;
    }
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, strings_ ? bit(DType::kString) : kNumericInputs,
                                        strings_ ? "X (cats_strings)" : "X (cats_int64s)"));
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kFloat32));
      return Status::ok();
    }
    std::vector<ir::Dim> y = *x.shape;
    y.push_back(ir::Dim::known(categories_));
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, y));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const bool ok = strings_ ? x.dtype() == DType::kString : in_set(kNumericInputs, x.dtype());
    if (!ok) return unsupported_type(ctx.node(), opset_, strings_ ? "X (cats_strings)" : "X (cats_int64s)", x.dtype());
    Shape shape = x.shape();
    shape.push_back(categories_);
    Tensor& y = ctx.output(0, DType::kFloat32, shape);
    std::fill(y.data<float>(), y.data<float>() + y.numel(), 0.f);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t c = category_of(x, i);
      if (c >= 0) {
        y.data<float>()[i * categories_ + c] = 1.f;
      } else if (!zeros_) {
        return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": element ", i, " of X (",
                     strings_ ? "'" + x.strings()[i] + "'" : str(x.as_double(i)), ") is in no category and zeros = 0");
      }
    }
    return Status::ok();
  }

 private:
  int64_t category_of(const Tensor& x, int64_t i) const {
    if (strings_) {
      auto it = by_string_.find(x.strings()[i]);
      return it == by_string_.end() ? -1 : it->second;
    }
    int64_t v = 0;
    if (dtype_is_integer(x.dtype())) {
      v = x.as_int64(i);
    } else {
      const double d = x.as_double(i);
      if (!std::isfinite(d) || std::abs(d) >= 9.0e18) return -1;
      v = static_cast<int64_t>(d);
    }
    auto it = by_int_.find(v);
    return it == by_int_.end() ? -1 : it->second;
  }

  int64_t opset_ = 0;
  bool zeros_ = true;
  bool strings_ = false;
  int64_t categories_ = 0;
  std::unordered_map<std::string, int64_t> by_string_;
  std::unordered_map<int64_t, int64_t> by_int_;
};

}  // namespace

HI_REGISTER_OP(OneHotEncoder, OneHotEncoderOp)

}  // namespace hi::ops
