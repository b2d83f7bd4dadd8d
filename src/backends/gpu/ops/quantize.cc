// QuantizeLinear and DequantizeLinear per tensor or per axis, with a float32 scale
// (kernels/quantize.cu), so QDQ models keep their float ops on the GPU between the two. Blocked
// quantization, float8/int4/16-bit types and other scale types stay on the CPU.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Quantize final : public GpuKernel {
 public:
  explicit Quantize(bool dequantize) : dequantize_(dequantize) {}
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 1);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    const DeviceValue& scale = ctx.input(1);
    DeviceValue& y = ctx.output(0);
    QuantDesc d;
    const int64_t n = shape_numel(x.shape);
    if (shape_numel(scale.shape) != 1) {  // per axis: a 1-D scale along `axis`
      HI_ASSIGN_OR_RETURN(const AxisView v, axis_view(ctx.node(), x.shape, axis_));
      HI_RETURN_IF(scale.shape.size() != 1 || scale.shape[0] != v.n, kInvalidArgument, ctx.node().op_type, ": scale ",
                   shape_to_string(scale.shape), " does not fit axis ", axis_, " of ", shape_to_string(x.shape));
      d.channels = v.n;
      d.inner = v.inner;
    }
    const void* zp = ctx.has_input(2) ? ctx.input(2).ptr : nullptr;
    const auto* s = static_cast<const float*>(scale.ptr);
    if (dequantize_) return dequantize_linear(x.dtype, x.ptr, s, zp, static_cast<float*>(y.ptr), d, n, ctx.stream());
    return quantize_linear(x.dtype, y.dtype, x.ptr, s, zp, y.ptr, d, n, ctx.stream());
  }

 private:
  bool dequantize_;
  int64_t axis_ = 1;
};

}  // namespace

std::string quantize_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const std::string& op = node.op_type;
  if (attr_int(node, "block_size", 0) != 0) return "no GPU kernel for blocked " + op;
  if (dtype_of(inputs, 1) != DType::kFloat32)
    return "no GPU kernel for " + op + " with a " + dtype_name(dtype_of(inputs, 1)) + " scale (float32)";
  if (attr_int(node, "precision", 0) != 0 && attr_int(node, "precision", 0) != 1)
    return "no GPU kernel for QuantizeLinear with a precision other than float32";
  if (rank_of(inputs, 1) > 1)
    return "no GPU kernel for " + op + " with a scale of rank " + std::to_string(rank_of(inputs, 1));
  const bool has_zp = node.inputs.size() > 2 && !node.inputs[2].empty();
  if (op == "DequantizeLinear") {
    const DType x = dtype_of(inputs, 0);
    if (!quantized_type(x) && x != DType::kInt32)
      return "no GPU kernel for DequantizeLinear of " + std::string(dtype_name(x)) + " (int8, uint8, int32)";
    if (attr_int(node, "output_dtype", 0) != 0 && attr_int(node, "output_dtype", 0) != 1)
      return "no GPU kernel for DequantizeLinear to a type other than float32";
    return "";
  }
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  const DType y = has_zp                                   ? dtype_of(inputs, 2)
                  : attr_int(node, "output_dtype", 0) != 0 ? static_cast<DType>(attr_int(node, "output_dtype", 0))
                                                           : DType::kUInt8;
  if (!quantized_type(y)) return "no GPU kernel for QuantizeLinear to " + std::string(dtype_name(y)) + " (int8, uint8)";
  return "";
}

std::unique_ptr<GpuKernel> make_quantize(const ir::Node& node) {
  return std::make_unique<Quantize>(node.op_type == "DequantizeLinear");
}

}  // namespace hi::gpu::HI_GPU_NS
