// Binary arithmetic with numpy broadcasting (kernels/binary.cu): Add, Sub, Mul, Div, Pow, PRelu,
// Mod with fmod=1, and the variadic Sum, Mean, Max, Min, which fold their inputs into the output in place, one
// input per launch (Mean scales by 1/n at the end); float16 Sum of three or more and Mean fold into a
// float32 workspace and round once, as the CPU does. Integers (int32, int64) for Add, Sub, Mul,
// Max, Min (ONNX's Sum and Mean take floats only); integer Div and Mod stay on the CPU, which reports a division by
// zero.
#include <algorithm>
#include <map>

#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, BinaryKind>& kinds() {
  static const std::map<std::string, BinaryKind> t = {
      {"Add", BinaryKind::kAdd}, {"Sub", BinaryKind::kSub},  {"Mul", BinaryKind::kMul}, {"Div", BinaryKind::kDiv},
      {"Pow", BinaryKind::kPow}, {"Max", BinaryKind::kMax},  {"Min", BinaryKind::kMin}, {"PRelu", BinaryKind::kPRelu},
      {"Sum", BinaryKind::kAdd}, {"Mean", BinaryKind::kAdd}, {"Mod", BinaryKind::kFmod}};
  return t;
}

bool integer_kind(BinaryKind k) {
  return k == BinaryKind::kAdd || k == BinaryKind::kSub || k == BinaryKind::kMul || k == BinaryKind::kMax ||
         k == BinaryKind::kMin;
}

class Binary final : public GpuKernel {
 public:
  Binary(BinaryKind kind, bool mean) : kind_(kind), mean_(mean) {}

  // A float16 Sum of three or more inputs, or Mean, adds in float32 and rounds once at the end,
  // as the CPU does: y's float32 sum, then room for one input widened to float32.
  Result<size_t> workspace_bytes(const LaunchContext& ctx) const override {
    if (!sums_in_float32(ctx)) return size_t{0};
    int64_t widest = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) widest = std::max(widest, shape_numel(ctx.input(i).shape));
    return static_cast<size_t>(shape_numel(ctx.output(0).shape) + widest) * sizeof(float);
  }

  Status launch(LaunchContext& ctx) const override {
    DeviceValue& y = ctx.output(0);
    const size_t n = ctx.num_inputs();
    if (n == 1) return copy_to(ctx.input(0), y, ctx.stream());
    if (sums_in_float32(ctx)) return launch_float32_sum(ctx);
    for (size_t i = 1; i < n; ++i) {
      // The first launch reads input 0; later ones fold input i into y.
      const DeviceValue& a = i == 1 ? ctx.input(0) : y;
      const DeviceValue& b = ctx.input(i);
      HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index_to(y.shape, a.shape, b.shape));
      HI_RETURN_IF_ERROR(binary(kind_, a.dtype, a.ptr, b.ptr, y.ptr, index, ctx.stream()));
    }
    if (!mean_) return Status::ok();
    const UnaryOp scale{UnaryKind::kAffine, 1.f / static_cast<float>(n), 0.f};
    return unary(scale, y.dtype, y.ptr, y.ptr, shape_numel(y.shape), ctx.stream());
  }

 private:
  // Sum or Mean of one input: y = x (x broadcasts to y's shape only trivially: they are equal).
  static Status copy_to(const DeviceValue& x, DeviceValue& y, Stream stream) {
    HI_RETURN_IF(x.shape != y.shape, kInternal, "GPU variadic op of one input: shape ", shape_to_string(x.shape),
                 " against ", shape_to_string(y.shape));
    return copy_async(y.ptr, x.ptr, static_cast<size_t>(shape_numel(y.shape)) * dtype_size(y.dtype),
                      CopyKind::kDeviceToDevice, stream);
  }

  bool sums_in_float32(const LaunchContext& ctx) const {
    return kind_ == BinaryKind::kAdd && ctx.num_inputs() > 1 && ctx.input(0).dtype == DType::kFloat16 &&
           (ctx.num_inputs() > 2 || mean_);
  }

  Status launch_float32_sum(LaunchContext& ctx) const {
    DeviceValue& y = ctx.output(0);
    const int64_t numel = shape_numel(y.shape);
    HI_RETURN_IF(!ctx.workspace(), kInternal, "GPU ", mean_ ? "Mean" : "Sum", " of float16: no workspace");
    float* sum = static_cast<float*>(ctx.workspace());
    float* widened = sum + numel;
    HI_RETURN_IF_ERROR(memset_async(sum, 0, static_cast<size_t>(numel) * sizeof(float), ctx.stream()));
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const DeviceValue& x = ctx.input(i);
      HI_RETURN_IF_ERROR(cast(DType::kFloat16, DType::kFloat32, x.ptr, widened, shape_numel(x.shape), ctx.stream()));
      HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index_to(y.shape, y.shape, x.shape));
      HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, DType::kFloat32, sum, widened, sum, index, ctx.stream()));
    }
    if (mean_) {
      const UnaryOp scale{UnaryKind::kAffine, 1.f / static_cast<float>(ctx.num_inputs()), 0.f};
      HI_RETURN_IF_ERROR(unary(scale, DType::kFloat32, sum, sum, numel, ctx.stream()));
    }
    return cast(DType::kFloat32, DType::kFloat16, sum, y.ptr, numel, ctx.stream());
  }

  BinaryKind kind_;
  bool mean_;
};

}  // namespace

std::string binary_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const bool variadic =
      node.op_type == "Sum" || node.op_type == "Mean" || node.op_type == "Max" || node.op_type == "Min";
  if (!variadic && node.inputs.size() != 2)
    return "no GPU kernel for " + node.op_type + " with " + std::to_string(node.inputs.size()) + " inputs";
  const DType t = dtype_of(inputs, 0);
  for (size_t i = 1; i < inputs.size(); ++i)
    if (dtype_of(inputs, i) != t)
      return "no GPU kernel for " + node.op_type + " of " + dtype_name(t) + " and " + dtype_name(dtype_of(inputs, i));
  if (node.op_type == "Mod" && attr_int(node, "fmod", 0) != 1)
    return "no GPU kernel for Mod with fmod=0 (integers: a division by zero is an error the CPU reports)";
  const BinaryKind k = kinds().at(node.op_type);
  // ONNX defines Sum and Mean on floats only; Max and Min take integers too.
  const bool float_only = node.op_type == "Mean" || node.op_type == "Sum";
  const bool integer = (t == DType::kInt32 || t == DType::kInt64) && integer_kind(k) && !float_only;
  if (!is_float(t) && !integer)
    return "no GPU kernel for " + node.op_type + " on " + dtype_name(t) +
           (integer_kind(k) && !float_only ? " (float32, float16, int32, int64)" : " (float32, float16)");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (std::string r = rank_reason(node, inputs, i, kMaxBroadcastRank); !r.empty()) return r;
  return "";
}

std::unique_ptr<GpuKernel> make_binary(const ir::Node& node) {
  return std::make_unique<Binary>(kinds().at(node.op_type), node.op_type == "Mean");
}

}  // namespace hi::gpu::HI_GPU_NS
