// Unary activations and math: one kernel (kernels/unary.cu), a kind per op (Gelu: exact or, with
// approximate="tanh", the tanh form).
#include <map>

#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, UnaryKind>& kinds() {
  static const std::map<std::string, UnaryKind> t = {{"Relu", UnaryKind::kRelu},
                                                     {"LeakyRelu", UnaryKind::kLeakyRelu},
                                                     {"Sigmoid", UnaryKind::kSigmoid},
                                                     {"Tanh", UnaryKind::kTanh},
                                                     {"Exp", UnaryKind::kExp},
                                                     {"Log", UnaryKind::kLog},
                                                     {"Sqrt", UnaryKind::kSqrt},
                                                     {"Reciprocal", UnaryKind::kReciprocal},
                                                     {"Neg", UnaryKind::kNeg},
                                                     {"Abs", UnaryKind::kAbs},
                                                     {"Erf", UnaryKind::kErf},
                                                     {"Gelu", UnaryKind::kGelu},
                                                     {"HardSigmoid", UnaryKind::kHardSigmoid},
                                                     {"HardSwish", UnaryKind::kHardSwish},
                                                     {"Softplus", UnaryKind::kSoftplus},
                                                     {"Elu", UnaryKind::kElu},
                                                     {"Selu", UnaryKind::kSelu},
                                                     {"Sin", UnaryKind::kSin},
                                                     {"Cos", UnaryKind::kCos},
                                                     {"Floor", UnaryKind::kFloor},
                                                     {"Ceil", UnaryKind::kCeil},
                                                     {"Round", UnaryKind::kRound},
                                                     {"Sign", UnaryKind::kSign},
                                                     {"Tan", UnaryKind::kTan},
                                                     {"Asin", UnaryKind::kAsin},
                                                     {"Acos", UnaryKind::kAcos},
                                                     {"Atan", UnaryKind::kAtan},
                                                     {"Sinh", UnaryKind::kSinh},
                                                     {"Cosh", UnaryKind::kCosh},
                                                     {"Asinh", UnaryKind::kAsinh},
                                                     {"Acosh", UnaryKind::kAcosh},
                                                     {"Atanh", UnaryKind::kAtanh},
                                                     {"Softsign", UnaryKind::kSoftsign},
                                                     {"Celu", UnaryKind::kCelu},
                                                     {"Mish", UnaryKind::kMish},
                                                     {"ThresholdedRelu", UnaryKind::kThresholdedRelu},
                                                     {"Shrink", UnaryKind::kShrink},
                                                     {"Affine", UnaryKind::kAffine},
                                                     {"Swish", UnaryKind::kSwish},
                                                     {"ScaledTanh", UnaryKind::kScaledTanh}};
  return t;
}

class Unary final : public GpuKernel {
 public:
  explicit Unary(UnaryKind kind) { op_.kind = kind; }
  Status init(ops::InitContext& ctx) override {
    switch (op_.kind) {
      case UnaryKind::kLeakyRelu: op_.alpha = ctx.get_float("alpha", 0.01f); break;
      case UnaryKind::kElu: op_.alpha = ctx.get_float("alpha", 1.f); break;
      case UnaryKind::kSelu:
        op_.alpha = ctx.get_float("alpha", 1.67326319217681884765625f);
        op_.beta = ctx.get_float("gamma", 1.05070102214813232421875f);
        break;
      case UnaryKind::kHardSigmoid:
        op_.alpha = ctx.get_float("alpha", 0.2f);
        op_.beta = ctx.get_float("beta", 0.5f);
        break;
      case UnaryKind::kCelu:
      case UnaryKind::kThresholdedRelu:
      case UnaryKind::kSwish: op_.alpha = ctx.get_float("alpha", 1.f); break;
      case UnaryKind::kShrink:
        op_.alpha = ctx.get_float("lambd", 0.5f);
        op_.beta = ctx.get_float("bias", 0.f);
        break;
      case UnaryKind::kAffine:
        op_.alpha = ctx.get_float("alpha", 1.f);
        op_.beta = ctx.get_float("beta", 0.f);
        break;
      case UnaryKind::kScaledTanh:
        op_.alpha = ctx.get_float("alpha", 1.f);
        op_.beta = ctx.get_float("beta", 1.f);
        break;
      default: break;
    }
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    DeviceValue& y = ctx.output(0);
    return unary(op_, ctx.input(0).dtype, ctx.input(0).ptr, y.ptr, shape_numel(y.shape), ctx.stream());
  }

 private:
  UnaryOp op_;
};

}  // namespace

std::string unary_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  const std::string approximate = attr_string(node, "approximate", "none");
  if (node.op_type == "Gelu" && approximate != "none" && approximate != "tanh")
    return "no GPU kernel for Gelu with approximate=" + approximate;
  return "";
}

std::unique_ptr<GpuKernel> make_unary(const ir::Node& node) {
  if (node.op_type == "Gelu" && attr_string(node, "approximate", "none") == "tanh")
    return std::make_unique<Unary>(UnaryKind::kGeluTanh);
  return std::make_unique<Unary>(kinds().at(node.op_type));
}

}  // namespace hi::gpu::HI_GPU_NS
