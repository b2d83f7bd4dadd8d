// Dropout at inference: the output is the input (shared), and the optional mask is all true
// (bool from opset 10, the input's type before). In training mode (opset 12's training_mode
// input) with ratio r in (0, 1): mask = u >= r for u uniform in [0, 1), y = mask * x / (1 - r).
// The 'seed' attribute seeds the generator (random_util.h: numpy-compatible, so the ONNX
// seeded tests reproduce); without it each run draws a new mask.
#include <optional>
#include <vector>

#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/random_util.h"

namespace hi::ops {
namespace {

class DropoutOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    ratio_attr_ = ctx.get_float("ratio", 0.5f);
    if (ctx.has("seed")) seed_ = static_cast<double>(ctx.get_int("seed", 0));
    may_train_ = opset_ >= 12 && ctx.node().inputs.size() > 2 && !ctx.node().inputs[2].empty();
    return ctx.status();
  }

  // An unseeded mask differs from run to run, so a node that may train must not be folded.
  bool is_deterministic() const override { return !may_train_ || seed_.has_value(); }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, opset_ >= 12 ? 3 : 1, 2));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (ctx.has_input(1)) {
      const ir::ValueType& r = ctx.input_type(1);
      if (r.dtype != DType::kUndefined && !in_set(kFloatTypes, r.dtype))
        return error(StatusCode::kInvalidModel, "ratio must be a float scalar, got ", r.to_string());
    }
    if (ctx.has_input(2)) {
      const ir::ValueType& t = ctx.input_type(2);
      if (t.dtype != DType::kUndefined && t.dtype != DType::kBool)
        return error(StatusCode::kInvalidModel, "training_mode must be a bool scalar, got ", t.to_string());
    }
    ctx.set_output_type(0, x);
    if (ctx.num_outputs() > 1) {
      ir::ValueType mask = x;
      mask.dtype = mask_dtype(x.dtype);
      ctx.set_output_type(1, mask);
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    float ratio = ratio_attr_;
    if (const Tensor* r = ctx.input(1)) {
      if (r->numel() != 1) return error(StatusCode::kInvalidArgument, "ratio must be a scalar, got ", r->type_string());
      ratio = static_cast<float>(r->as_double(0));
    }
    bool training = false;
    if (const Tensor* t = ctx.input(2)) {
      if (t->numel() != 1 || t->dtype() != DType::kBool)
        return error(StatusCode::kInvalidArgument, "training_mode must be a bool scalar, got ", t->type_string());
      training = *t->data<bool>();
    }
    if (training && ratio != 0.f) return run_training(ctx, x, ratio);
    ctx.set_output(0, x);
    if (ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty()) {
      const DType md = mask_dtype(x.dtype());
      Tensor& mask = ctx.output(1, md, x.shape());
      const int64_t n = mask.numel();
      if (!dispatch<kAllTypes>(md, [&]<typename T>() {
            T* p = mask.data<T>();
            for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(1.f);
          }))
        return unsupported_dtype(ctx.node(), md);
    }
    return Status::ok();
  }

 private:
  Status run_training(RunContext& ctx, const Tensor& x, float ratio) const {
    if (!(ratio > 0.f && ratio < 1.f))
      return error(StatusCode::kInvalidArgument, "ratio must be in [0, 1) in training mode, got ", ratio);
    const int64_t n = x.numel();
    std::vector<bool> keep(static_cast<size_t>(n));
    RandomSource rng(seed_);
    for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] = rng.uniform() >= static_cast<double>(ratio);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    if (!dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
          using C = compute_t<T>;
          const C scale = C(1) / (C(1) - static_cast<C>(ratio));
          const T* px = x.data<T>();
          T* py = y.data<T>();
          for (int64_t i = 0; i < n; ++i)
            py[i] = static_cast<T>(keep[static_cast<size_t>(i)] ? static_cast<C>(px[i]) * scale : C(0));
        }))
      return unsupported_dtype(ctx.node(), x.dtype());
    if (ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty()) {
      Tensor& mask = ctx.output(1, DType::kBool, x.shape());
      for (int64_t i = 0; i < n; ++i) mask.data<bool>()[i] = keep[static_cast<size_t>(i)];
    }
    return Status::ok();
  }

  DType mask_dtype(DType x) const { return opset_ >= 10 ? DType::kBool : x; }

  int64_t opset_ = 13;
  float ratio_attr_ = 0.5f;
  std::optional<double> seed_;
  bool may_train_ = false;
};

}  // namespace

HI_REGISTER_OP(Dropout, DropoutOp)

}  // namespace hi::ops
