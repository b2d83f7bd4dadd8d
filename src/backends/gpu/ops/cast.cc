// Cast between float32 and float16 (kernels/cast.cu). Nothing else: the GPU produces no integer
// (or bool) tensors, because the executor relies on every integer tensor a GPU step reads on the
// host (shapes, indices, axes) being a partition input, which a Cast on the GPU would break.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// The target type: the ONNX code in 'to' (a type name before opset 6).
DType target_of(const ir::Node& node) {
  const ir::Attribute* a = node.attr("to");
  if (!a) return DType::kUndefined;
  if (a->kind == ir::Attribute::Kind::kString) {
    if (a->s == "FLOAT") return DType::kFloat32;
    if (a->s == "FLOAT16") return DType::kFloat16;
    return DType::kUndefined;
  }
  if (a->kind != ir::Attribute::Kind::kInt) return DType::kUndefined;
  if (a->i == 1) return DType::kFloat32;  // TensorProto::FLOAT
  if (a->i == 10) return DType::kFloat16;  // TensorProto::FLOAT16
  return a->i >= 0 && a->i <= 255 ? static_cast<DType>(a->i) : DType::kUndefined;
}

class Cast final : public GpuKernel {
 public:
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    return cast_float(x.dtype, y.dtype, x.ptr, y.ptr, shape_numel(y.shape), ctx.stream());
  }
};

}  // namespace

std::string cast_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType to = target_of(node);
  if (to != DType::kFloat32 && to != DType::kFloat16) {
    const std::string name = to == DType::kUndefined ? std::string("that type") : dtype_name(to);
    const bool floating = to == DType::kFloat64 || to == DType::kBFloat16 || (to >= DType::kFloat8E4M3FN &&
                                                                             to <= DType::kFloat8E5M2FNUZ) ||
                          to == DType::kFloat4E2M1 || to == DType::kFloat8E8M0;
    if (floating || to == DType::kUndefined || to == DType::kString || to == DType::kComplex64 || to == DType::kComplex128)
      return "no GPU kernel for Cast to " + name + " (float32, float16)";
    return "no GPU kernel for Cast to " + name +
           ": the GPU produces no integer or bool tensors (the GPU executor reads shapes, indices and axes on the "
           "host, from partition inputs)";
  }
  if (!is_float(dtype_of(inputs, 0)))
    return "no GPU kernel for Cast from " + std::string(dtype_name(dtype_of(inputs, 0))) + " (float32, float16)";
  return "";
}

std::unique_ptr<GpuKernel> make_cast(const ir::Node&) { return std::make_unique<Cast>(); }

}  // namespace hi::gpu::HI_GPU_NS
