// RandomUniform, RandomNormal (shape from the 'shape' attribute) and their *Like forms (shape,
// and by default dtype, from the input): one template, the distribution as a parameter. Output
// types float16, bfloat16, float32, float64; values drawn in double and rounded once. These
// ops are not deterministic (unless seeded, each run differs), so they are never folded.
#pragma once

#include <optional>

#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/random_util.h"

namespace hi::ops {

// Dist has: static constexpr names and defaults of its two parameters, and
//   static double draw(RandomSource&, double p0, double p1).
template <typename Dist, bool kLike>
class RandomOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const std::string& op = ctx.node().op_type;
    p0_ = ctx.get_float(Dist::kParam0, Dist::kDefault0);
    p1_ = ctx.get_float(Dist::kParam1, Dist::kDefault1);
    if (ctx.has("seed")) seed_ = static_cast<double>(ctx.get_float("seed", 0));
    if (!kLike || ctx.has("dtype")) {
      dtype_ = static_cast<DType>(ctx.get_int("dtype", static_cast<int64_t>(DType::kFloat32)));
      if (!in_set(kFloatTypes, dtype_))
        return ctx.fail(StatusCode::kUnsupported, op, " (opset ", ctx.opset(), "): attribute 'dtype' names ",
                        dtype_name(dtype_), "; the output must be float16, bfloat16, float32 or float64");
    }
    if (!kLike) {
      if (!ctx.has("shape")) return ctx.fail(StatusCode::kInvalidModel, op, " needs the attribute 'shape'");
      shape_ = ctx.get_ints("shape");
      for (int64_t d : shape_)
        if (d < 0) return ctx.fail(StatusCode::kInvalidModel, op, ": attribute 'shape' has a negative dim ", d);
    }
    return ctx.status();
  }

  bool is_deterministic() const override { return false; }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, kLike ? 1 : 0, kLike ? 1 : 0, 1));
    if (!kLike) {
      ctx.set_output_type(0, ir::ValueType::concrete(dtype_, shape_));
      return Status::ok();
    }
    const ir::ValueType& x = ctx.input_type(0);
    HI_ASSIGN_OR_RETURN(const DType dt, output_dtype(ctx.node(), x.dtype));
    ir::ValueType y = x;
    y.dtype = dt;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    Shape shape = shape_;
    DType dt = dtype_;
    if (kLike) {
      shape = ctx.in(0).shape();
      HI_ASSIGN_OR_RETURN(dt, output_dtype(ctx.node(), ctx.in(0).dtype()));
    }
    Tensor& y = ctx.output(0, dt, shape);
    RandomSource rng(seed_);
    dispatch<kFloatTypes>(dt, [&]<typename T>() {
      T* p = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i)
        p[i] = static_cast<T>(static_cast<compute_t<T>>(Dist::draw(rng, p0_, p1_)));
    });
    return Status::ok();
  }

 private:
  // *Like: the 'dtype' attribute, else the input's type (which must then be a float type).
  Result<DType> output_dtype(const ir::Node& node, DType input) const {
    if (dtype_ != DType::kUndefined) return dtype_;
    if (input == DType::kUndefined || in_set(kFloatTypes, input)) return input;
    return error(StatusCode::kUnsupported, node.op_type, ": the input is ", dtype_name(input),
                 " and no 'dtype' attribute is given; the output must be float16, bfloat16, float32 or float64");
  }

  double p0_ = 0, p1_ = 1;
  std::optional<double> seed_;
  DType dtype_ = DType::kUndefined;
  Shape shape_;
};

// low + (high - low) * u, u uniform in [0, 1).
struct UniformDist {
  static constexpr const char* kParam0 = "low";
  static constexpr const char* kParam1 = "high";
  static constexpr float kDefault0 = 0.f, kDefault1 = 1.f;
  static double draw(RandomSource& rng, double low, double high) { return low + (high - low) * rng.uniform(); }
};

// mean + scale * z, z standard normal.
struct NormalDist {
  static constexpr const char* kParam0 = "mean";
  static constexpr const char* kParam1 = "scale";
  static constexpr float kDefault0 = 0.f, kDefault1 = 1.f;
  static double draw(RandomSource& rng, double mean, double scale) { return mean + scale * rng.normal(); }
};

}  // namespace hi::ops
