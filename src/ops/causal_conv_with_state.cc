// CausalConvWithState (opset 27): a depthwise causal 1-D convolution with a carried state.
// Per batch b and channel c, the sequence is past_state (k - 1 values; zeros when absent)
// followed by the input, and
//   output[b, c, t] = act(bias[c] + sum_i weight[c, 0, i] * padded[b, c, t + i])
//   present_state   = the last k - 1 values of padded.
// act is none, or silu / swish (x * sigmoid(x)). The convolution accumulates in double and is
// rounded to T before the activation, as the spec's Conv -> activation steps are.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kConvTypes = bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16);
enum Input { kInput, kWeight, kBias, kPastState };

class CausalConvWithStateOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string act = ctx.get_string("activation", "none");
    HI_RETURN_IF_ERROR(ctx.status());
    if (act != "none" && act != "silu" && act != "swish")
      return ctx.fail(StatusCode::kInvalidModel, "attribute activation must be 'none', 'silu' or 'swish', got '", act,
                      "'");
    silu_ = act != "none";
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 4, 2));
    const ir::ValueType& x = ctx.input_type(kInput);
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i)) HI_RETURN_IF_ERROR(check_type(i, ctx.input_type(i).dtype, x.dtype));
    bool all_static = true;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && !ctx.input_type(i).is_static()) all_static = false;
    if (all_static) {
      auto shape = [&](size_t i) { return ctx.has_input(i) ? ctx.input_type(i).concrete_shape() : Shape{}; };
      const Shape bias = shape(kBias), past = shape(kPastState);
      HI_RETURN_IF_ERROR(check_shapes(shape(kInput), shape(kWeight), ctx.has_input(kBias) ? &bias : nullptr,
                                      ctx.has_input(kPastState) ? &past : nullptr));
    } else if (x.has_rank() && x.rank() != 3) {
      return error(StatusCode::kInvalidModel, "input must be [batch, channels, length], got ", x.to_string());
    }
    ctx.set_output_type(0, x);
    if (ctx.num_outputs() > 1) {
      const ir::ValueType& w = ctx.input_type(kWeight);
      const ir::Dim k = w.has_rank() && w.rank() == 3 ? (*w.shape)[2] : ir::Dim{};
      if (x.has_rank() && x.rank() == 3)
        ctx.set_output_type(
            1, ir::ValueType::tensor(
                   x.dtype, {(*x.shape)[0], (*x.shape)[1], k.is_known() ? ir::Dim::known(k.value - 1) : ir::Dim{}}));
      else ctx.set_output_type(1, ir::ValueType::tensor_unknown_shape(x.dtype));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(kInput);
    const Tensor& w = ctx.in(kWeight);
    const Tensor* bias = ctx.input(kBias);
    const Tensor* past = ctx.input(kPastState);
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i)) HI_RETURN_IF_ERROR(check_type(i, ctx.input(i)->dtype(), x.dtype()));
    const Shape bias_shape = bias ? bias->shape() : Shape{}, past_shape = past ? past->shape() : Shape{};
    HI_RETURN_IF_ERROR(check_shapes(x.shape(), w.shape(), bias ? &bias_shape : nullptr, past ? &past_shape : nullptr));
    const int64_t batch = x.dim(0), channels = x.dim(1), len = x.dim(2), k = w.dim(2);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool wants_state = ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty();
    Tensor* state = wants_state ? &ctx.output(1, x.dtype(), {batch, channels, k - 1}) : nullptr;
    dispatch<kConvTypes>(x.dtype(), [&]<typename T>() {
      std::vector<double> padded(static_cast<size_t>(k - 1 + len));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t bc = b * channels + c;
          for (int64_t i = 0; i < k - 1; ++i)
            padded[static_cast<size_t>(i)] = past ? past->as_double(bc * (k - 1) + i) : 0.0;
          for (int64_t t = 0; t < len; ++t)
            padded[static_cast<size_t>(k - 1 + t)] = static_cast<double>(x.data<T>()[bc * len + t]);
          for (int64_t t = 0; t < len; ++t) {
            double acc = bias ? bias->as_double(c) : 0.0;
            for (int64_t i = 0; i < k; ++i) acc += w.as_double(c * k + i) * padded[static_cast<size_t>(t + i)];
            double out = static_cast<double>(static_cast<T>(static_cast<compute_t<T>>(acc)));
            if (silu_) out = out / (1.0 + std::exp(-out));
            y.data<T>()[bc * len + t] = static_cast<T>(static_cast<compute_t<T>>(out));
          }
          for (int64_t i = 0; state && i < k - 1; ++i)
            state->data<T>()[bc * (k - 1) + i] =
                static_cast<T>(static_cast<compute_t<T>>(padded[static_cast<size_t>(len + i)]));
        }
    });
    return Status::ok();
  }

 private:
  Status check_type(size_t i, DType t, DType x) const {
    static const char* const kNames[] = {"input", "weight", "bias", "past_state"};
    if (t == DType::kUndefined) return Status::ok();
    if (!in_set(kConvTypes, t))
      return error(StatusCode::kUnsupported, "CausalConvWithState (opset ", opset_, ") does not support ", kNames[i],
                   " of type ", dtype_name(t), "; expected float32, float16 or bfloat16");
    if (x != DType::kUndefined && t != x)
      return error(StatusCode::kInvalidModel, kNames[i], " is ", dtype_name(t), " but input is ", dtype_name(x),
                   "; they must match");
    return Status::ok();
  }

  static Status check_shapes(const Shape& x, const Shape& w, const Shape* bias, const Shape* past) {
    const StatusCode bad = StatusCode::kInvalidArgument;
    if (x.size() != 3) return error(bad, "input must be [batch, channels, length], got ", shape_to_string(x));
    if (w.size() != 3 || w[0] != x[1] || w[1] != 1 || w[2] < 1)
      return error(bad, "weight must be [channels ", x[1], ", 1, k >= 1], got ", shape_to_string(w));
    if (bias && *bias != Shape{x[1]})
      return error(bad, "bias must be [channels] = [", x[1], "], got ", shape_to_string(*bias));
    if (past && *past != Shape{x[0], x[1], w[2] - 1})
      return error(bad, "past_state must be [batch, channels, k - 1] = [", x[0], ", ", x[1], ", ", w[2] - 1, "], got ",
                   shape_to_string(*past));
    return Status::ok();
  }

  int64_t opset_ = 27;
  bool silu_ = false;
};

}  // namespace

HI_REGISTER_OP(CausalConvWithState, CausalConvWithStateOp)

}  // namespace hi::ops
