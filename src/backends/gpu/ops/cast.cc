// Cast and CastLike (kernels/cast.cu) between float32, float16, int64, int32, int8, uint8 and
// bool, with the CPU's conversions. Integer results are fine on the GPU: a node that reads one on
// the host starts a new partition (runtime/partition.h).
#include "backends/gpu/kernels/elementwise.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// Cast's target: the ONNX code in 'to' (a type name before opset 6).
DType target_of(const ir::Node& node) {
  const ir::Attribute* a = node.attr("to");
  if (!a) return DType::kUndefined;
  if (a->kind == ir::Attribute::Kind::kString) return dtype_from_name(a->s);
  if (a->kind != ir::Attribute::Kind::kInt) return DType::kUndefined;
  return a->i >= 0 && a->i <= 255 ? static_cast<DType>(a->i) : DType::kUndefined;
}

class Cast final : public GpuKernel {
 public:
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    return cast(x.dtype, y.dtype, x.ptr, y.ptr, shape_numel(y.shape), ctx.stream());
  }
};

}  // namespace

std::string cast_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType to = node.op_type == "CastLike" ? dtype_of(inputs, 1) : target_of(node);
  const DType from = dtype_of(inputs, 0);
  const auto name = [](DType t) {
    return t == DType::kUndefined ? std::string("an unknown type") : std::string(dtype_name(t));
  };
  if (!cast_supports(from) || !cast_supports(to))
    return "no GPU kernel for " + node.op_type + " from " + name(from) + " to " + name(to) +
           " (float32, float16, int64, int32, int8, uint8, bool)";
  return "";
}

std::unique_ptr<GpuKernel> make_cast(const ir::Node&) { return std::make_unique<Cast>(); }

}  // namespace hi::gpu::HI_GPU_NS
