// Binary arithmetic with numpy broadcasting (kernels/binary.cu).
#include <map>

#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, BinaryKind>& kinds() {
  static const std::map<std::string, BinaryKind> t = {{"Add", BinaryKind::kAdd}, {"Sub", BinaryKind::kSub},
                                                      {"Mul", BinaryKind::kMul}, {"Div", BinaryKind::kDiv},
                                                      {"Pow", BinaryKind::kPow}, {"Max", BinaryKind::kMax},
                                                      {"Min", BinaryKind::kMin}};
  return t;
}

class Binary final : public GpuKernel {
 public:
  explicit Binary(BinaryKind kind) : kind_(kind) {}
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& a = ctx.input(0);
    const DeviceValue& b = ctx.input(1);
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(a.shape, b.shape));
    return binary(kind_, a.dtype, a.ptr, b.ptr, ctx.output(0).ptr, index, ctx.stream());
  }

 private:
  BinaryKind kind_;
};

}  // namespace

std::string binary_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (node.inputs.size() != 2)
    return "no GPU kernel for " + node.op_type + " with " + std::to_string(node.inputs.size()) + " inputs";
  if (!is_float(dtype_of(inputs, 0)) || dtype_of(inputs, 1) != dtype_of(inputs, 0))
    return float_only_reason(node, inputs);
  return "";
}

std::unique_ptr<GpuKernel> make_binary(const ir::Node& node) { return std::make_unique<Binary>(kinds().at(node.op_type)); }

}  // namespace hi::gpu::HI_GPU_NS
